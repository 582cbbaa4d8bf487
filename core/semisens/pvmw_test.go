package semisens

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
)

// script is a Noise that answers given Laplace draws in order (0 once they
// run out), fills Gaussians with a constant, and records every request.
type script struct {
	lap   []float64
	gauss float64
	asked []ask
}

type ask struct {
	kind  NoiseKind // −1 for a Gaussian
	scale float64
}

func (s *script) Laplace(kind NoiseKind, scale float64) float64 {
	s.asked = append(s.asked, ask{kind, scale})
	if len(s.lap) == 0 {
		return 0
	}
	x := s.lap[0]
	s.lap = s.lap[1:]
	return x
}

func (s *script) Gaussian(std float64, dst []float64) {
	s.asked = append(s.asked, ask{-1, std})
	for i := range dst {
		dst[i] = s.gauss
	}
}

func demo() Params {
	return Params{Rho: 0.25, Delta: 1e-6, LMax: 4, Eta: 1, C: 1, Tau: 0.04}
}

// The derivation's identities: the budget splits into L_max instances of
// ε′²/2 + ε′²/2 + ρ_G; the tight Gaussian spends exactly ρ_G, the paper's a
// quarter of it; the paper's and the tight budgets convert back to ≤ ε and
// = ε.
func TestCalibrate(t *testing.T) {
	for _, rule := range []string{CalPaper, CalTight} {
		c, err := Calibrate(0.2539, 20, 5000, 0, rule)
		if err != nil {
			t.Fatal(err)
		}
		near(t, "ledger", float64(c.LMax)*(c.EpsPrime*c.EpsPrime+c.RhoG), c.Rho, 1e-12)
		near(t, "b_query/b_thr", c.BQuery/c.BThr, 2, 1e-15)
		near(t, "b_thr/b_norm", c.BThr/c.BNorm, 2, 1e-15)
		want := c.RhoG
		if rule == CalPaper {
			want /= 4
		}
		near(t, "Gaussian spent", c.GaussianSpent, want, 1e-15)
		// The spec's defaults: ε′ = 0.0797, b_thr = 0.0100, b_query = 0.0201,
		// b_norm = 0.0050, tight std 0.00355.
		near(t, "ε′", c.EpsPrime, 0.0797, 5e-5)
		near(t, "b_thr", c.BThr, 0.0100, 5e-5)
		near(t, "b_query", c.BQuery, 0.0201, 5e-5)
		near(t, "b_norm", c.BNorm, 0.0050, 5e-5)
		if rule == CalTight {
			near(t, "s_G", c.SG, 0.00355, 5e-6)
		}
	}
	rho, _ := Rho(4, 1e-6, CalTight)
	near(t, "ρ*", rho, 0.2539, 5e-5)
	near(t, "ρ* converts to ε", privacy.ZCDPToDP(rho, 1e-6), 4, 1e-12)
	p, _ := Rho(1, 1e-6, CalPaper)
	near(t, "paper ρ", p, 0.007238, 5e-7)
	tight, _ := Rho(1, 1e-6, CalTight)
	near(t, "tight ρ", tight, 0.017469, 5e-7)
	if privacy.ZCDPToDP(p, 1e-6) > 1 {
		t.Errorf("the paper's ρ converts to ε = %v > 1", privacy.ZCDPToDP(p, 1e-6))
	}
	for _, bad := range []struct {
		rho        float64
		lmax, n    int
		zeta       float64
		rule, want string
	}{
		{0, 20, 100, 0, CalTight, "ρ = 0"},
		{1, 0, 100, 0, CalTight, "L_max = 0"},
		{1, 20, 0, 0, CalTight, "n = 0"},
		{1, 20, 100, 1, CalTight, "ζ = 1"},
		{1, 20, 100, 0, "loose", `calibration "loose"`},
	} {
		if _, err := Calibrate(bad.rho, bad.lmax, bad.n, bad.zeta, bad.rule); err == nil || !contains(err.Error(), bad.want) {
			t.Errorf("Calibrate(%v, %d, %d, %v, %q): %v, want %q", bad.rho, bad.lmax, bad.n, bad.zeta, bad.rule, err, bad.want)
		}
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// everyTestPasses is the scripted tests' setting: six examples of three
// classes, a two-query table, L_max = 2 and τ ≈ 0, so any error is too much
// and every test is ⊤ while the noise is 0.
func everyTestPasses(t *testing.T, seed1, seed2 uint64) (*Dataset, Table, Params) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed1, seed2))
	d := randomData(t, r, 6, 3)
	tab := randomTable(r, 6, 3, 2)
	p := demo()
	p.LMax = 2
	p.Tau = 1e-9
	return d, tab, p
}

// Control flow and calibration with scripted noise: ⊥ answers f(p); ⊤
// releases one Gaussian and one norm, updates, draws a new χ and re-tests
// the same query; FAIL comes after the paid updates and stays.
func TestPVMWScripted(t *testing.T) {
	d, tab, p := everyTestPasses(t, 9, 10)
	s := &script{}
	rec := trace.NewRecorder("pvmw", 0)
	m, err := NewPVMW(d, p, s, rec)
	if err != nil {
		t.Fatal(err)
	}
	cal := m.Calibration()
	reply, err := m.Answer(tab)
	if err != nil {
		t.Fatal(err)
	}
	if reply.Answer != nil || reply.Tests != 2 || reply.Updates != 2 || !m.Failed() {
		t.Fatalf("with τ ≈ 0 and L_max = 2: %+v, failed %v; want two ⊤ tests, two updates, FAIL", reply, m.Failed())
	}
	want := []ask{{ThresholdNoise, cal.BThr},
		{TestNoise, cal.BQuery}, {-1, cal.SG}, {NormNoise, cal.BNorm}, {ThresholdNoise, cal.BThr},
		{TestNoise, cal.BQuery}, {-1, cal.SG}, {NormNoise, cal.BNorm}, {ThresholdNoise, cal.BThr}}
	if len(s.asked) != len(want) {
		t.Fatalf("draws %v, want %v", s.asked, want)
	}
	for i, a := range s.asked {
		if a != want[i] {
			t.Errorf("draw %d: %+v, want %+v", i+1, a, want[i])
		}
	}
	if again, _ := m.Answer(tab); again.Answer != nil || again.Tests != 0 {
		t.Errorf("after FAIL: %+v", again)
	}
	// The printed loop pays for L_max = 2 instances and updates once.
	p.PaperLoop = true
	m, _ = NewPVMW(d, p, &script{}, nil)
	if reply, _ := m.Answer(tab); reply.Updates != 1 || !m.Failed() {
		t.Errorf("printed loop: %+v, want one update then FAIL", reply)
	}
	// A threshold noise that lifts τ + χ above any error: ⊥ at once, and
	// the answer is the beliefs' (uniform) answer.
	p.PaperLoop = false
	m, _ = NewPVMW(d, p, &script{lap: []float64{10}}, nil)
	reply, _ = m.Answer(tab)
	want0 := Answer(&d.Public, Uniform(6, 3), tab, nil)
	if reply.Tests != 1 || reply.Updates != 0 || dist(reply.Answer, want0) != 0 {
		t.Errorf("⊥ at once: %+v, want f(p⁰) = %v", reply, want0)
	}
}

// The update releases exactly v = f(D) + z and ι = E + ξ: scripted draws
// that are not zero (z = 0.25 in every coordinate, ξ = 0.125) must show in
// the release, so an update that forgets its noise cannot pass for one
// whose noise happened to be 0. The first update of two runs that differ
// only in those draws is compared: its f(D) and E are the same.
func TestPVMWReleasesItsNoise(t *testing.T) {
	d, tab, p := everyTestPasses(t, 13, 14) // an update follows the first test
	first := func(gauss, xi float64) UpdateStep {
		t.Helper()
		rec := trace.NewRecorder("pvmw", 0)
		m, err := NewPVMW(d, p, &script{gauss: gauss, lap: []float64{0, 0, xi}}, rec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Answer(tab); err != nil {
			t.Fatal(err)
		}
		for _, st := range rec.Trace().Steps {
			if st.Kind == KindUpdate {
				return st.Data.(UpdateStep)
			}
		}
		t.Fatal("no update recorded")
		return UpdateStep{}
	}
	quiet, noisy := first(0, 0), first(0.25, 0.125)
	for j := range quiet.V {
		if !(math.Abs(noisy.V[j]-quiet.V[j]-0.25) <= 1e-12) {
			t.Errorf("v[%d] = %v with z = 0.25, %v with z = 0: the release does not carry its Gaussian noise", j, noisy.V[j], quiet.V[j])
		}
	}
	if !(math.Abs(noisy.Iota-quiet.Iota-0.125) <= 1e-12) || noisy.Xi != 0.125 {
		t.Errorf("ι = %v with ξ = 0.125 (recorded ξ %v), %v with ξ = 0: the release does not carry its Laplace noise", noisy.Iota, noisy.Xi, quiet.Iota)
	}
	if want := 0.25 * math.Sqrt(float64(len(quiet.V))); !(math.Abs(noisy.NoiseZ-want) <= 1e-12) {
		t.Errorf("‖z‖ recorded as %v, want %v", noisy.NoiseZ, want)
	}
}

// Run on seeded noise at demo parameters: every answer's error is below
// τ + χ − ν of its test, each query reads n sensitive values (MWU none),
// and replaying the released updates on any neighbour's public data gives
// the same beliefs and answers.
func TestPVMWTranscript(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	d := logisticData(t, r, 2000, 4, 2)
	p := demo()
	p.LMax, p.Rho, p.Tau = 20, 5, 0.05
	rec := trace.NewRecorder("pvmw", 1)
	m, err := NewPVMW(d, p, StreamNoise(rng.New(1)), rec)
	if err != nil {
		t.Fatal(err)
	}
	var queries []Query
	var answers [][]float64
	for s := range 30 {
		w := make([]float64, Logistic{}.Dim(&d.Public))
		for j := range w {
			w[j] = math.Sin(float64(s*len(w)+j)) * 3
		}
		q := Logistic{}.Gradient(w)
		reply, err := m.Answer(q)
		if err != nil {
			t.Fatal(err)
		}
		if reply.Answer == nil {
			break
		}
		queries, answers = append(queries, q), append(answers, reply.Answer)
	}
	if m.Updates() == 0 || len(answers) < 10 {
		t.Fatalf("%d updates over %d answers: the test needs both", m.Updates(), len(answers))
	}
	if d.Reads() != 2000*len(answers) {
		t.Errorf("%d sensitive reads for %d queries of 2000 examples: something beside f(D) read them", d.Reads(), len(answers))
	}
	var last TestStep
	var updates []UpdateStep
	for _, st := range rec.Trace().Steps {
		switch v := st.Data.(type) {
		case TestStep:
			last = v
		case AnswerStep:
			if !(v.Error < last.Tau+last.Chi-last.Nu) {
				t.Errorf("query %d answered with error %.4g, not below τ + χ − ν = %.4g", v.Query, v.Error, last.Tau+last.Chi-last.Nu)
			}
		case UpdateStep:
			updates = append(updates, v)
		}
	}
	// Replay on a neighbour: its public data, the released updates.
	nb, _ := d.Neighbour(7, (d.Reveal()[7]+1)%4)
	b := Uniform(2000, 4)
	u := 0
	for s, q := range queries {
		for u < len(updates) && updates[u].Query == s+1 {
			if _, err := MWU(&nb.Public, b, q, updates[u].V, updates[u].IotaUsed, MWUParams{Eta: p.Eta, C: p.C}); err != nil {
				t.Fatal(err)
			}
			u++
		}
		if got := Answer(&nb.Public, b, q, nil); dist(got, answers[s]) != 0 {
			t.Fatalf("query %d: replayed on the neighbour's public data the answer is %v, the run's %v", s+1, got, answers[s])
		}
	}
	if nb.Reads() != 0 {
		t.Errorf("the replay read %d sensitive values", nb.Reads())
	}
}

// Sensitivities on random instances: ‖f(D) − f(D′)‖ ≤ 2/n and the error
// norm moves by at most 2/n.
func TestSensitivity(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 200 {
		n, k, dim := 1+r.IntN(8), 2+r.IntN(4), 1+r.IntN(3)
		d := randomData(t, r, n, k)
		nb, _ := d.Neighbour(r.IntN(n), r.IntN(k))
		tab := randomTable(r, n, k, dim)
		a, b := d.TrueAnswer(tab, nil), nb.TrueAnswer(tab, nil)
		if dist(a, b) > 2/float64(n)+1e-12 {
			t.Fatalf("‖f(D) − f(D′)‖ = %v > 2/n = %v", dist(a, b), 2/float64(n))
		}
		fp := Answer(&d.Public, Uniform(n, k), tab, nil)
		if !(math.Abs(dist(fp, a)-dist(fp, b)) <= 2/float64(n)+1e-12) {
			t.Fatalf("the error norm moved by more than 2/n")
		}
		if i, ok := Neighbours(d, nb); !ok || (i >= 0 && d.sensitive[i] == nb.sensitive[i]) {
			t.Fatalf("Neighbours(d, d′) = %d, %v", i, ok)
		}
	}
}
