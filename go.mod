module github.com/uldplab/uldp

go 1.25.0

require (
	github.com/google/differential-privacy/go/v3 v3.0.0
	gonum.org/v1/gonum v0.17.0
)

require github.com/golang/glog v1.2.0 // indirect
