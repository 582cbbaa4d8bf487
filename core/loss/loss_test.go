package loss

import (
	"math"
	"math/rand/v2"
	"testing"
)

// dykstra projects onto the intersection by Dykstra's cyclic projections,
// the reference the exact projection must match.
func dykstra(k Intersection, y []float64) []float64 {
	d := len(y)
	x := append([]float64(nil), y...)
	inc := make([][]float64, len(k))
	for j := range inc {
		inc[j] = make([]float64, d)
	}
	z := make([]float64, d)
	for it := 0; it < 200_000; it++ {
		prev := append([]float64(nil), x...)
		for j, b := range k {
			for i := range z {
				z[i] = x[i] + inc[j][i]
			}
			b.Project(z, z)
			for i := range z {
				inc[j][i] = x[i] + inc[j][i] - z[i]
				x[i] = z[i]
			}
		}
		if Dist(prev, x) < 1e-15 {
			break
		}
	}
	return x
}

// Random balls of 1 to 4 dimensions, 1 to 3 of them (the 2- and 3-ball sets
// of the phased algorithms), against Dykstra: same point, in every ball;
// disjoint sets are reported (checked by Dykstra failing to land in all).
func TestIntersectionProjectMatchesDykstra(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	counts := map[int]int{} // candidates' active-set sizes seen
	for trial := 0; trial < 600; trial++ {
		d := 1 + r.IntN(4)
		k := make(Intersection, 1+r.IntN(3))
		for j := range k {
			k[j] = Ball{Centre: make([]float64, d), Radius: 0.3 + r.Float64()}
			for i := range d {
				k[j].Centre[i] = r.NormFloat64() * 0.5
			}
		}
		y := make([]float64, d)
		for i := range y {
			y[i] = r.NormFloat64() * 2
		}
		got, ok := k.Project(y, make([]float64, d))
		want := dykstra(k, y)
		if !ok {
			if k.near(want, y) {
				t.Fatalf("trial %d: reported empty, Dykstra found %v in all %d balls", trial, want, len(k))
			}
			continue
		}
		if !k.Contains(got) {
			t.Fatalf("trial %d: %v is not in every ball", trial, got)
		}
		// Dykstra converges slowly near tangency; 1e-6 is far below any
		// difference the stability checks compare against.
		if Dist(got, want) > 1e-6 {
			t.Fatalf("trial %d (d=%d, %d balls): exact %v, Dykstra %v", trial, d, len(k), got, want)
		}
		active := 0
		for _, b := range k {
			if math.Abs(Dist(got, b.Centre)-b.Radius) < 1e-9 {
				active++
			}
		}
		counts[active]++
	}
	if counts[2] == 0 || counts[3] == 0 {
		t.Errorf("the trials never landed on two or three spheres at once: %v", counts)
	}
	t.Logf("projections by number of active spheres: %v", counts)
}

// Regression shapes: y on the centres' axis, concentric balls, a ball inside
// another, and one point shared by tangent balls.
func TestIntersectionProjectSpecialCases(t *testing.T) {
	for _, c := range []struct {
		name string
		k    Intersection
		y    []float64
		want []float64
		ok   bool
	}{
		{"on the axis", Intersection{{[]float64{0, 0}, 1}, {[]float64{1.5, 0}, 1}}, []float64{5, 0}, []float64{1, 0}, true},
		{"axis, lens", Intersection{{[]float64{0, 0}, 1}, {[]float64{1, 0}, 1}}, []float64{0.5, 3}, []float64{0.5, math.Sqrt(0.75)}, true},
		{"concentric", Intersection{{[]float64{0, 0}, 2}, {[]float64{0, 0}, 1}}, []float64{3, 4}, []float64{0.6, 0.8}, true},
		{"nested", Intersection{{[]float64{0, 0}, 5}, {[]float64{1, 1}, 1}}, []float64{1, 4}, []float64{1, 2}, true},
		{"tangent", Intersection{{[]float64{0, 0}, 1}, {[]float64{2, 0}, 1}}, []float64{1, 3}, []float64{1, 0}, true},
		{"disjoint", Intersection{{[]float64{0, 0}, 1}, {[]float64{3, 0}, 1}}, []float64{1, 3}, nil, false},
		{"1-D", Intersection{{[]float64{0}, 1}, {[]float64{1.5}, 1}, {[]float64{0.2}, 2}}, []float64{-4}, []float64{0.5}, true},
	} {
		got, ok := c.k.Project(c.y, make([]float64, len(c.y)))
		if ok != c.ok || (ok && Dist(got, c.want) > 1e-12) {
			t.Errorf("%s: %v, %v; want %v, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

func TestBallProjectAndLoss(t *testing.T) {
	b := Ball{Centre: []float64{1, 1}, Radius: 1}
	got := b.Project([]float64{4, 5}, make([]float64, 2))
	if !(math.Abs(got[0]-1.6) <= 1e-15) || !(math.Abs(got[1]-1.8) <= 1e-15) {
		t.Errorf("projection %v, want (1.6, 1.8)", got)
	}
	if l := (Squared{Mu: 2}).Value([]float64{0, 0}, [][]float64{{1, 0}, {0, 3}}); l != 5 {
		t.Errorf("loss %v, want (1 + 9)/2 = 5", l)
	}
}

func BenchmarkIntersectionProject(b *testing.B) {
	k := Intersection{{[]float64{0, 0}, 1}, {[]float64{1, 0}, 1}, {[]float64{0.5, 0.5}, 0.8}}
	y, dst := []float64{0.5, 3}, make([]float64, 2)
	for b.Loop() {
		k.Project(y, dst)
	}
}

// Baseline for BenchmarkIntersectionProject: Dykstra on the same set,
// where the answer lies on two of the three spheres.
func BenchmarkIntersectionDykstra(b *testing.B) {
	k := Intersection{{[]float64{0, 0}, 1}, {[]float64{1, 0}, 1}, {[]float64{0.5, 0.5}, 0.8}}
	y := []float64{0.5, 3}
	for b.Loop() {
		dykstra(k, y)
	}
}
