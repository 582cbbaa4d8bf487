package semisens

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// golden is the spec's MWU example: n = 2, k = 3, d = 2, truths y2 and y1.
func golden(t *testing.T) (*Dataset, Table) {
	t.Helper()
	tab := Table{
		{{1, 0}, {0, 1}, {-0.6, -0.8}},
		{{0.6, 0.8}, {-1, 0}, {0, -1}},
	}
	d, err := New(3, [][]float64{{}, {}}, nil, []int{1, 0})
	if err != nil {
		t.Fatal(err)
	}
	return d, tab
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if !(math.Abs(got-want) <= tol) {
		t.Errorf("%s = %.12g, want %.12g (±%g)", what, got, want, tol)
	}
}

func TestClipTrunc(t *testing.T) {
	c := Clip([]float64{2, 0}, []float64{0.9, 0.3}, 1, nil)
	near(t, "clip x", c[0], 0.5, 1e-15)
	near(t, "clip y", c[1], 1.0/6, 1e-15)
	near(t, "trunc", Trunc(1.8, 1), 1, 0)
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		phi := []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		u := []float64{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
		cc := r.Float64()*3 + 0.01
		cl := Clip(phi, u, cc, nil)
		if !(math.Abs(Trunc(dot(phi, u), cc)-dot(phi, cl)) <= 1e-12) || !(math.Abs(dot(phi, cl)) <= cc*(1+1e-12)) {
			t.Fatalf("trunc_c(⟨φ,u⟩) ≠ ⟨φ, clip(u)⟩ at φ %v u %v c %v", phi, u, cc)
		}
		if k := norm(cl) / norm(u); !(k > 0 && k <= 1+1e-12) {
			t.Fatalf("clip scaled u by %v, outside (0, 1]", k)
		}
	}
}

// The spec's golden values, to 1e−10, with and without active clipping.
func TestMWUGolden(t *testing.T) {
	d, tab := golden(t)
	truth := d.Reveal()
	near(t, "Ψ⁰", Potential(Uniform(2, 3), truth), math.Log(3), 1e-15)
	fD := d.TrueAnswer(tab, nil)
	near(t, "f(D)₁", fD[0], 0.3, 1e-15)
	near(t, "f(D)₂", fD[1], 0.9, 1e-15)
	for _, c := range []struct {
		eta, c  float64
		s, p    [][]float64
		psi, er float64
	}{
		{0.25, 3, [][]float64{{0.388888888889, 0.944444444444, -0.988888888889}, {0.988888888889, -0.388888888889, -0.944444444444}},
			[][]float64{{0.349942742085, 0.402082960184, 0.247974297731}, {0.430044983932, 0.304735861209, 0.265219154859}}, 0.877481152504, 0.790768598900},
		{1, 0.5, [][]float64{{0.388888888889, 0.5, -0.5}, {0.5, -0.388888888889, -0.5}},
			[][]float64{{0.395470852777, 0.441946219110, 0.162582928114}, {0.562116159504, 0.231092861865, 0.206790978632}}, 0.696306920734, 0.630266991642},
	} {
		b := Uniform(2, 3)
		st, err := MWU(&d.Public, b, tab, []float64{0.35, 0.85}, 0.9, MWUParams{Eta: c.eta, C: c.c})
		if err != nil {
			t.Fatal(err)
		}
		near(t, "φ₁", st.Phi[0], 0.388888888889, 1e-11)
		near(t, "φ₂", st.Phi[1], 0.944444444444, 1e-11)
		for i := range 2 {
			for y := range 3 {
				near(t, "s", st.Scores[i*3+y], c.s[i][y], 1e-11)
				near(t, "p¹", b.P(i, y), c.p[i][y], 1e-11)
			}
		}
		near(t, "Ψ¹", Potential(b, truth), c.psi, 1e-11)
		near(t, "error after", dist(Answer(&d.Public, b, tab, nil), fD), c.er, 1e-11)
	}
	if d.Reads() != 2*2 {
		t.Errorf("%d sensitive reads, want 4: one Reveal and one TrueAnswer of 2 examples, none by MWU", d.Reads())
	}
}

// randomTable is a query with n × k values in the unit ball.
func randomTable(r *rand.Rand, n, k, d int) Table {
	tab := make(Table, n)
	for i := range tab {
		tab[i] = make([][]float64, k)
		for y := range tab[i] {
			v := make([]float64, d)
			for j := range v {
				v[j] = r.NormFloat64()
			}
			scale(v, r.Float64()/max(norm(v), 1e-300))
			tab[i][y] = v
		}
	}
	return tab
}

func randomData(t *testing.T, r *rand.Rand, n, k int) *Dataset {
	t.Helper()
	ys := make([]int, n)
	for i := range ys {
		ys[i] = r.IntN(k)
	}
	d, err := New(k, make([][]float64, n), nil, ys)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Rows stay distributions; every log-weight moves by η·s − ln Z with
// |s| ≤ c; and the potential obeys the exact inequality (D1) for any φ.
func TestMWUInvariants(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for trial := range 300 {
		n, k, dim := 1+r.IntN(6), 2+r.IntN(5), 1+r.IntN(4)
		d := randomData(t, r, n, k)
		tab := randomTable(r, n, k, dim)
		b := Uniform(n, k)
		// Start from random beliefs.
		if trial%2 == 1 {
			p := make([][]float64, n)
			for i := range p {
				p[i] = make([]float64, k)
				s := 0.0
				for y := range p[i] {
					p[i][y] = r.Float64() + 0.01
					s += p[i][y]
				}
				scale(p[i], 1/s)
			}
			b, _ = FromProbs(p)
		}
		before := b.Clone()
		truth := d.Reveal()
		c := 0.2 + 3*r.Float64()
		eta := r.Float64() / c
		v := make([]float64, dim)
		for j := range v {
			v[j] = 2 * r.NormFloat64()
		}
		iota := 0.05 + r.Float64()
		st, err := MWU(&d.Public, b, tab, v, iota, MWUParams{Eta: eta, C: c})
		if err != nil {
			t.Fatal(err)
		}
		var aTrue, aSyn, q float64
		for i := range n {
			sum := 0.0
			for y := range k {
				s := st.Scores[i*k+y]
				if !(math.Abs(s) <= c) {
					t.Fatalf("score %v beyond c = %v", s, c)
				}
				sum += b.P(i, y)
				p := before.P(i, y)
				aSyn += p * s
				q += p * s * s
			}
			aTrue += st.Scores[i*k+truth[i]]
			near(t, "row sum", sum, 1, 1e-12)
		}
		aTrue, aSyn, q = aTrue/float64(n), aSyn/float64(n), q/float64(n)
		drop := Potential(before, truth) - Potential(b, truth)
		if bound := eta*(aTrue-aSyn) - eta*eta*q; drop < bound-1e-9 {
			t.Fatalf("trial %d: Ψ dropped %.12g, below the exact bound (D1) %.12g", trial, drop, bound)
		}
	}
}

// Noise-free MWU (v = f(D), ι = E): no clipping at c ≥ 1, and Ψ drops by
// at least ηE − η² (D2); updating while E ≥ τ at η = τ/2 stops within
// 4 ln k/τ² updates (D3).
func TestMWUNoiseFree(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20 {
		n, k, dim := 5+r.IntN(20), 2+r.IntN(30), 1+r.IntN(5)
		d := randomData(t, r, n, k)
		tab := randomTable(r, n, k, dim)
		truth := d.Reveal()
		fD := d.TrueAnswer(tab, nil)
		tau := 0.05 + 0.2*r.Float64()
		eta := tau / 2
		b := Uniform(n, k)
		updates := 0
		for {
			e := dist(Answer(&d.Public, b, tab, nil), fD)
			if e < tau {
				break
			}
			psi := Potential(b, truth)
			st, err := MWU(&d.Public, b, tab, fD, e, MWUParams{Eta: eta, C: 1})
			if err != nil {
				t.Fatal(err)
			}
			if st.Clipped != 0 {
				t.Fatalf("noise-free MWU clipped %d scores at c = 1", st.Clipped)
			}
			if drop := psi - Potential(b, truth); drop < eta*e-eta*eta-1e-12 {
				t.Fatalf("Ψ dropped %.6g < ηE − η² = %.6g", drop, eta*e-eta*eta)
			}
			updates++
			if float64(updates) > 4*math.Log(float64(k))/(tau*tau) {
				t.Fatalf("%d updates at τ = %.3g, k = %d: more than 4 ln k/τ² = %.1f", updates, tau, k, 4*math.Log(float64(k))/(tau*tau))
			}
		}
	}
}

// generic hides a query's fast path.
type generic struct{ Query }

// The one-hot fast path answers what the generic path answers.
func TestFastPath(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	d := logisticData(t, r, 40, 5, 3)
	w := make([]float64, Logistic{}.Dim(&d.Public))
	for j := range w {
		w[j] = r.NormFloat64()
	}
	q := Logistic{}.Gradient(w)
	if _, ok := fast(&d.Public, q); !ok {
		t.Fatal("the logistic gradient takes the generic path")
	}
	b := Uniform(40, 5)
	v := make([]float64, q.Dim())
	for j := range v {
		v[j] = r.NormFloat64() * 0.1
	}
	for range 3 {
		g := b.Clone()
		a, ag := Answer(&d.Public, b, q, nil), Answer(&d.Public, g, generic{q}, nil)
		for j := range a {
			near(t, "f(p)", a[j], ag[j], 1e-14)
		}
		s1, err1 := MWU(&d.Public, b, q, v, 0.3, MWUParams{Eta: 1, C: 1})
		s2, err2 := MWU(&d.Public, g, generic{q}, v, 0.3, MWUParams{Eta: 1, C: 1})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for i := range s1.Scores {
			near(t, "score", s1.Scores[i], s2.Scores[i], 1e-14)
			near(t, "belief", b.logp[i], g.logp[i], 1e-12)
		}
	}
	// Every value of the gradient query lies in the unit ball (G = 1).
	u := make([]float64, q.Dim())
	for i := range 40 {
		for y := range 5 {
			q.Eval(&d.Public, i, y, u)
			if norm(u) > 1+1e-12 {
				t.Fatalf("‖f(x%d, %d)‖ = %v > 1", i, y, norm(u))
			}
		}
	}
}

// The logistic gradient's scales, computed with e^{b·z} factored per
// example and per candidate, agree with σ computed whole where the factors
// are normal numbers, and fall back to σ where they are not (weights of
// |w|/√3 past exp's range of about 709). The factored form rounds two
// exponents, e^{a₁}·e^{a₂} for e^{a₁+a₂}: its relative error grows with
// |a₁| + |a₂| as exp's own does with its argument, about (1 + |a₁| + |a₂|)
// ulps; at the lesson's radius R = 5, |aᵢ| ≤ 5.
func TestLogisticScalesAgreeWithSigmoid(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	const n, k, dp = 60, 6, 3
	d := logisticData(t, r, n, k, dp)
	for c, m := range []float64{0.1, 1, 30, 1, 30, 600, 3000} {
		w := make([]float64, Logistic{}.Dim(&d.Public))
		for j := range w {
			w[j] = m * r.NormFloat64()
		}
		switch c {
		case 3: // every example's own factor out of range, one candidate's
			// bringing the product back in (e^{±(750 − 698)})
			w[len(w)-1], w[dp+1] = 1300, -1210
		case 4, 5: // a candidate's factor out of range
			w[dp+2] = -1300
		}
		q := Logistic{}.Gradient(w).(*logisticGrad)
		got := make([]float64, k)
		for i := range n {
			q.Scales(&d.Public, i, got)
			b := d.Labels[i]
			for y := range k {
				want := -b * sigmoid(-b*margin(&d.Public, w, i, y))
				base := dot(w[:dp], d.Features[i]) + w[len(w)-1]
				ulps := 8 * (1 + (math.Abs(base)+math.Abs(w[dp+y]))*invSqrt3)
				if diff := math.Abs(got[y] - want); diff > ulps*0x1p-52*math.Abs(want) && diff > 1e-300 {
					t.Fatalf("|w| ~ %v, example %d, y = %d: scale %v, σ whole gives %v", m, i, y, got[y], want)
				}
			}
		}
	}
}

// logisticData draws n examples: public features in the unit ball, a
// sensitive value, and a label from a model that leans on the value.
func logisticData(t *testing.T, r *rand.Rand, n, k, dp int) *Dataset {
	t.Helper()
	feats := make([][]float64, n)
	labels := make([]float64, n)
	ys := make([]int, n)
	for i := range feats {
		a := make([]float64, dp)
		for j := range a {
			a[j] = r.NormFloat64()
		}
		scale(a, r.Float64()/max(norm(a), 1e-300))
		feats[i], ys[i] = a, r.IntN(k)
		labels[i] = 1
		if r.Float64() < sigmoid(float64(2*ys[i]-k)) {
			labels[i] = -1
		}
	}
	d, err := New(k, feats, labels, ys)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Lemma 16 replayed: on inputs built to meet Condition 14 — a large true
// error, noise small along it, clipping that changes neither answer
// beyond η², ι within (η, 2E] — every step lowers Ψ by at least η². The
// six conditions are checked numerically, not assumed.
func TestLemma16(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	held := 0
	for range 400 {
		n, k, dim := 2+r.IntN(12), 2+r.IntN(6), 1+r.IntN(4)
		d := randomData(t, r, n, k)
		truth := d.Reveal()
		tab := randomTable(r, n, k, dim)
		// The true values point one way, the others the opposite way:
		// uniform beliefs then answer far from f(D).
		u := make([]float64, dim)
		for j := range u {
			u[j] = r.NormFloat64()
		}
		scale(u, 1/norm(u))
		for i := range n {
			for y := range k {
				s := -1.0
				if y == truth[i] {
					s = 1
				}
				for j := range u {
					tab[i][y][j] = 0.3*tab[i][y][j] + 0.7*s*u[j]
				}
				if nv := norm(tab[i][y]); nv > 1 {
					scale(tab[i][y], 1/nv)
				}
			}
		}
		c := 3.0
		eta := 0.005 + 0.02*r.Float64()
		b := Uniform(n, k)
		fD := d.TrueAnswer(tab, nil)
		fP := Answer(&d.Public, b, tab, nil)
		e := dist(fD, fP)
		v := make([]float64, dim)
		for j := range v {
			v[j] = fD[j] + 0.01*eta*r.NormFloat64()
		}
		iota := e * (0.6 + 0.9*r.Float64())
		// Condition 14.
		phi := make([]float64, dim)
		for j := range phi {
			phi[j] = (v[j] - fP[j]) / iota
		}
		diff := make([]float64, dim)  // f(D) − f(p)
		noise := make([]float64, dim) // v − f(D)
		vp := make([]float64, dim)    // v − f(p)
		for j := range diff {
			diff[j], noise[j], vp[j] = fD[j]-fP[j], v[j]-fD[j], v[j]-fP[j]
		}
		clipAt := func(values []int, weights func(i, y int) float64) []float64 {
			out := make([]float64, dim)
			tmp := make([]float64, dim)
			for i := range n {
				for y := range k {
					w := 1.0
					switch {
					case values != nil && y != values[i]:
						continue
					case values == nil:
						w = weights(i, y)
					}
					Clip(phi, tab[i][y], c, tmp)
					for j := range out {
						out[j] += w * tmp[j] / float64(n)
					}
				}
			}
			return out
		}
		clipD := clipAt(truth, nil)
		clipP := clipAt(nil, b.P)
		sub := func(a, x []float64) []float64 {
			out := make([]float64, len(a))
			for j := range a {
				out[j] = a[j] - x[j]
			}
			return out
		}
		conds := []bool{
			eta <= 1/c,
			e >= (2*c*c+7)*eta,
			math.Abs(dot(noise, diff)) <= eta*e,
			math.Abs(dot(vp, sub(clipD, fD))) <= eta*eta,
			math.Abs(dot(vp, sub(clipP, fP))) <= eta*eta,
			iota > eta,
			iota <= 2*e,
		}
		all := true
		for _, ok := range conds {
			all = all && ok
		}
		// CheckCondition measures the same parts its own way (through the
		// scores); both must agree, and (D1) bounds its measured drop.
		cond, err := CheckCondition(&d.Public, truth, b, tab, v, iota, MWUParams{Eta: eta, C: c})
		if err != nil {
			t.Fatal(err)
		}
		for j, pt := range cond.Parts {
			if pt.Holds != conds[j] {
				t.Fatalf("part %s: CheckCondition says %v (%.6g against %.6g), the direct check %v", pt.Name, pt.Holds, pt.Value, pt.Bound, conds[j])
			}
		}
		if cond.Holds != all || cond.Drop < cond.Exact-1e-12 || !(math.Abs(cond.Error-e) <= 1e-12) {
			t.Fatalf("CheckCondition: holds %v (want %v), drop %.6g against (D1) %.6g, E %.6g against %.6g", cond.Holds, all, cond.Drop, cond.Exact, cond.Error, e)
		}
		if !all {
			continue
		}
		held++
		before := Potential(b, truth)
		if _, err := MWU(&d.Public, b, tab, v, iota, MWUParams{Eta: eta, C: c}); err != nil {
			t.Fatal(err)
		}
		drop := before - Potential(b, truth)
		if drop < eta*eta-1e-12 {
			t.Fatalf("Condition 14 held (E = %.4g, η = %.4g, ι = %.4g) but Ψ dropped %.6g < η² = %.6g", e, eta, iota, drop, eta*eta)
		}
		if !(math.Abs(drop-cond.Drop) <= 1e-12) {
			t.Fatalf("CheckCondition measured a drop of %.9g, the step made %.9g", cond.Drop, drop)
		}
	}
	t.Logf("Condition 14 held on %d of 400 built inputs; Ψ fell by η² or more on each", held)
	if held < 100 {
		t.Errorf("Condition 14 held on %d of 400 built inputs: too few to test Lemma 16", held)
	}
}

// Condition 14 on the spec's golden step with clipping active (η = 1,
// c = 0.5), worked by hand: four of the six scores are cut; the truth's
// two lose 0.444… and 0.488…, so (iii) = ι·0.4666… = 0.42, while the
// beliefs' cuts cancel, (iv) = 0; (ii) = |⟨(0.05, −0.05), (0.3, 0.9)⟩| =
// 0.03; (i) and (v) fail (E = 0.9487 < 7.5, ι = 0.9 ≤ η). (D1):
// A_true = 0.5, A_syn = 0, Q = (1 + 2·0.3889²)/6, so the drop
// ln 3 − 0.696307 = 0.402305 is at least 0.5 − Q = 0.282922.
func TestCheckConditionGolden(t *testing.T) {
	d, tab := golden(t)
	cond, err := CheckCondition(&d.Public, d.Reveal(), Uniform(2, 3), tab, []float64{0.35, 0.85}, 0.9, MWUParams{Eta: 1, C: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	s := 0.388888888889 * 0.388888888889
	want := []struct {
		value float64
		holds bool
	}{{1, true}, {0.948683298, false}, {0.03, true}, {0.42, true}, {0, true}, {0.9, false}, {0.9, true}}
	for j, w := range want {
		pt := cond.Parts[j]
		near(t, pt.Name, pt.Value, w.value, 1e-9)
		if pt.Holds != w.holds {
			t.Errorf("part %s holds %v, want %v", pt.Name, pt.Holds, w.holds)
		}
	}
	var rels []string
	for _, pt := range cond.Parts {
		rels = append(rels, pt.Relation())
	}
	if got := strings.Join(rels, " "); got != "≤ < ≤ ≤ ≤ ≤ ≤" {
		t.Errorf("relations as they stand: %s, want ≤ < ≤ ≤ ≤ ≤ ≤ ((i) fails below, (v) fails at or under)", got)
	}
	// z = v − f(D) = (0.05, −0.05): along the error (0.3, 0.9)/0.948683,
	// −0.03/0.948683; across, √(0.005 − 0.001).
	near(t, "‖z‖", cond.Noise, math.Sqrt(0.005), 1e-12)
	near(t, "z along the error", cond.NoiseAlong, -0.03/math.Sqrt(0.9), 1e-12)
	near(t, "z across the error", cond.NoiseAcross(), math.Sqrt(0.004), 1e-12)
	near(t, "clipped", cond.Clipped, 4.0/6, 1e-15)
	near(t, "drop", cond.Drop, math.Log(3)-0.696306920734, 1e-11)
	near(t, "(D1)", cond.Exact, 0.5-(1+2*s)/6, 1e-11)
	near(t, "η²", cond.Lemma, 1, 0)
	if cond.Holds {
		t.Error("Condition 14 holds with (i) and (v) failing")
	}
}
