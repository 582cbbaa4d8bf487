package noise_test

import (
	"fmt"

	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/rng"
)

// TDLap(ε̄ = 4, δ̄ = 1.766842e-3), DelOutputPert's R1 at ε = 8, δ = 0.1.
func ExampleTDLap() {
	d, err := noise.NewTDLap(4, 1.766842e-3, rng.New(1).Get(rng.TDLap))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("κ =", d.Kappa())
	for x := 0; x <= 2*d.Kappa(); x++ {
		fmt.Printf("pmf(%d) = %.6g\n", x, d.PMF(x))
	}
	fmt.Println("R1 drawn:", d.Rand())
	// Output:
	// κ = 3
	// pmf(0) = 5.92319e-06
	// pmf(1) = 0.000323395
	// pmf(2) = 0.0176568
	// pmf(3) = 0.964028
	// pmf(4) = 0.0176568
	// pmf(5) = 0.000323395
	// pmf(6) = 5.92319e-06
	// R1 drawn: 3
}

// Discrete Laplace noise for a count, with integer arithmetic only.
func ExampleDiscreteLaplace() {
	scale, _ := noise.RationalOf(2.5) // Δ/ε for Δ = 1, ε = 0.4
	l := noise.DiscreteLaplace{Scale: scale, Src: rng.New(7).Get(rng.DLaplace)}
	fmt.Printf("scale %v, Pr[X = 0] = %.4f\n", scale, l.PMF(0))
	// Output: scale 5/2, Pr[X = 0] = 0.1974
}
