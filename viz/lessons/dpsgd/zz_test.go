package dpsgd

import (
	"testing"
	"time"

	"github.com/uldplab/uldp/viz"
)

func TestZZMaxima(t *testing.T) {
	a := viz.NewApp(New())
	t0 := time.Now()
	if err := a.Restore("scene=dp-sgd&n=1000&m=50&steps=500&tau=10"); err != nil {
		t.Fatal(err)
	}
	a.Settle()
	t.Logf("maxima %v", time.Since(t0))
	t0 = time.Now()
	a.Restore("scene=dp-sgd&n=1000&m=50&steps=500&tau=5")
	a.Settle()
	t.Logf("tau change %v", time.Since(t0))
}
