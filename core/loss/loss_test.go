package loss

import (
	"math"
	"math/rand/v2"
	"testing"
)

// dykstra projects onto a ∩ b by Dykstra's alternating projections, the
// reference the closed form must match.
func dykstra(a, b Ball, y []float64) []float64 {
	d := len(y)
	x := append([]float64(nil), y...)
	p, q := make([]float64, d), make([]float64, d)
	ya, yb := make([]float64, d), make([]float64, d)
	for it := 0; it < 200_000; it++ {
		for k := range x {
			ya[k] = x[k] + p[k]
		}
		a.Project(ya, ya)
		for k := range x {
			p[k] = x[k] + p[k] - ya[k]
			yb[k] = ya[k] + q[k]
		}
		b.Project(yb, yb)
		for k := range x {
			q[k] = ya[k] + q[k] - yb[k]
		}
		if Dist(yb, x) < 1e-15 {
			break
		}
		copy(x, yb)
	}
	return x
}

func TestProjectIntersectionMatchesDykstra(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		d := 1 + r.IntN(3)
		a := Ball{Centre: make([]float64, d), Radius: 0.5 + r.Float64()}
		b := Ball{Centre: make([]float64, d), Radius: 0.2 + r.Float64()}
		y := make([]float64, d)
		for k := 0; k < d; k++ {
			a.Centre[k] = r.NormFloat64() * 0.3
			b.Centre[k] = a.Centre[k] + r.NormFloat64()*0.6
			y[k] = r.NormFloat64() * 2
		}
		got, ok := ProjectIntersection(a, b, y, make([]float64, d))
		if Dist(a.Centre, b.Centre) > a.Radius+b.Radius {
			if ok {
				t.Fatal("disjoint balls reported as intersecting")
			}
			continue
		}
		if !ok || !a.Contains(got) || !b.Contains(got) {
			t.Fatalf("trial %d: %v not in both balls", trial, got)
		}
		want := dykstra(a, b, y)
		// Dykstra converges slowly near tangency; 1e-6 is far below any
		// difference the stability checks compare against.
		if Dist(got, want) > 1e-6 {
			t.Fatalf("trial %d (d=%d): closed form %v, Dykstra %v", trial, d, got, want)
		}
	}
}

func TestBallProjectAndLoss(t *testing.T) {
	b := Ball{Centre: []float64{1, 1}, Radius: 1}
	got := b.Project([]float64{4, 5}, make([]float64, 2))
	if math.Abs(got[0]-1.6) > 1e-15 || math.Abs(got[1]-1.8) > 1e-15 {
		t.Errorf("projection %v, want (1.6, 1.8)", got)
	}
	if l := (Squared{Mu: 2}).Value([]float64{0, 0}, [][]float64{{1, 0}, {0, 3}}); l != 5 {
		t.Errorf("loss %v, want (1 + 9)/2 = 5", l)
	}
}
