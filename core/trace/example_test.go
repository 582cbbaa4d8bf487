package trace_test

import (
	"context"
	"fmt"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// A two-step run, branched on an edited dataset with the same seed: the noise
// is identical, so the outputs differ by exactly the change in the mean.
func ExampleStepper_Branch() {
	run := func(ctx cancel.Context, d *dataset.Dataset, s *rng.Streams) (*trace.Trace, error) {
		rec := trace.NewRecorder("noisy-sum", s.Seed())
		var sum float64
		for i := range d.Users {
			sum += d.UserMean(i, nil)[0]
		}
		rec.Addf("data.sum", sum, "sum of user means %.2f", sum)
		z := noise.Laplace{Scale: 1, Src: s.Get(rng.Laplace)}.Rand()
		rec.Addf("noise.add", sum+z, "release %.2f", sum+z)
		return rec.Trace(), nil
	}
	d := &dataset.Dataset{Dim: 1, Users: []dataset.User{{ID: "a", Points: []float64{1}}, {ID: "b", Points: []float64{2}}}}
	s, _ := trace.NewStepper(context.Background(), run, d, rng.New(5))
	edited, _ := d.Replace(1, dataset.User{Points: []float64{12}})
	b, _ := s.Branch(context.Background(), edited)
	for _, st := range []*trace.Stepper{s, b} {
		for {
			step, ok := st.Next()
			if !ok {
				break
			}
			fmt.Println(step.Text)
		}
	}
	// Output:
	// sum of user means 3.00
	// release 0.04
	// sum of user means 13.00
	// release 10.04
}
