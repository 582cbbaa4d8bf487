package audit

import (
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/semisens"
)

// What a PVMW audit looks at. Each view is one release of the transcript
// with its own claim, so a violation points at the piece that leaks.
const (
	// ViewGate is the first AboveThreshold instance's halting index over
	// a stream of tests: pure ε′-DP.
	ViewGate = "gate"
	// ViewRelease is the first released noisy answer v = f(D) + z: the
	// Gaussian's ρ_G-zCDP.
	ViewRelease = "release"
	// ViewAnswer is the beliefs' answer after the first update, which the
	// next ⊥ would release: post-processing of (v, ι), ρ_G + ε′²/2 zCDP.
	ViewAnswer = "answer"
)

// PVMWViews lists the views.
var PVMWViews = []string{ViewGate, ViewRelease, ViewAnswer}

// PVMW's audit instance: n = 4 examples, k = 2 values and the query
// f(x, 1) = 1, f(x, 2) = −1 in ℝ¹. A holds value 1 everywhere (f(A) = 1);
// B changes example 1 to value 2 (f(B) = ½): the whole 2/n, away from the
// uniform beliefs' answer 0, which moves the error norm as far as it can.
// One update is paid for (L_max = 1); its budget is set per view so the
// claim sits well inside what 10⁵ runs per side can refute (ε ≈ 9).
const (
	pvmwN     = 4
	pvmwGateT = 30
	// The gate is audited at ε′ = 4: each ⊥ of the broken gate then leaks
	// up to ε′/4 = 1, so ten of them refute ε′ with room to spare.
	pvmwGateEps = 4.0
	// The releases are audited at ε′ = ½, ρ_G = ¼.
	pvmwReleaseEps = 0.5
)

// PVMWInstance returns the audit's two neighbouring datasets and query.
func PVMWInstance() (a, b *semisens.Dataset, q semisens.Table) {
	q = make(semisens.Table, pvmwN)
	for i := range q {
		q[i] = [][]float64{{1}, {-1}}
	}
	a, _ = semisens.New(2, make([][]float64, pvmwN), nil, make([]int, pvmwN))
	b, _ = a.Neighbour(0, 1)
	return a, b, q
}

// PVMWAudit is one audit's setup: the samplers of both sides and the claim
// the view's release must keep.
type PVMWAudit struct {
	A, B  Sampler
	Claim privacy.Guarantee
}

// NewPVMWAudit sets up the view's audit of PVMW (or of a broken variant)
// at δ (the gate's claim is pure, δ = 0).
func NewPVMWAudit(view string, mutant semisens.Mutant, delta float64) (PVMWAudit, error) {
	if err := privacy.CheckDelta(delta); err != nil {
		return PVMWAudit{}, err
	}
	claim := privacy.Guarantee{Mode: privacy.Paper, Relation: privacy.SemiSensitive}
	eps := pvmwReleaseEps
	if view == ViewGate {
		eps = pvmwGateEps
	}
	rhoInst := eps * eps / 0.5 // ε′ = √(ζ·ρ_inst) at ζ = ½
	rhoG := rhoInst / 2
	p := semisens.Params{Rho: rhoInst, Delta: delta, LMax: 1, Calibration: semisens.CalPaper, Eta: 1, C: 1, Mutant: mutant}
	var stat func(m *semisens.PVMW, q semisens.Table) ([]float64, error)
	switch view {
	case ViewGate:
		// τ at A's error: a test is ⊤ half the time on A, less on B.
		p.Tau = 1
		claim.Eps, claim.Note = eps, "AboveThreshold's halting index is ε′-DP (pure), however many tests"
		stat = func(m *semisens.PVMW, q semisens.Table) ([]float64, error) {
			for t := 1; t <= pvmwGateT; t++ {
				r, err := m.Answer(q)
				if err != nil || r.Updates > 0 {
					return []float64{float64(t)}, err
				}
			}
			return []float64{0}, nil
		}
	case ViewRelease, ViewAnswer:
		// A tiny τ: the first test updates more often than not. A run whose
		// first test is ⊥ releases nothing more (⊥ to the audit).
		p.Tau = 1e-6
		claim.Delta = delta
		rho := eps*eps/2 + rhoG // the test's bit and the Gaussian
		claim.Note = "the test (ε′²/2) and the Gaussian (ρ_G, charged 2/σ²) in zCDP"
		if view == ViewAnswer {
			rho += eps * eps / 2
			claim.Note = "the beliefs after an update are post-processing of the test, v and ι: ε′²/2 + ρ_G + ε′²/2 in zCDP"
		}
		claim.Eps = privacy.ZCDPToDP(rho, delta)
		stat = func(m *semisens.PVMW, q semisens.Table) ([]float64, error) {
			if _, err := m.Answer(q); err != nil {
				return nil, err
			}
			u, ok := m.LastUpdate()
			switch {
			case !ok:
				return nil, nil
			case view == ViewRelease:
				return u.V, nil
			}
			return semisens.Answer(m.Public(), m.Beliefs(), q, nil), nil
		}
	default:
		return PVMWAudit{}, format.Errorf("view %q: PVMW's audit looks at gate, release or answer", view)
	}
	a, b, q := PVMWInstance()
	sampler := func(d *semisens.Dataset) Sampler {
		return func(st *rng.Streams) ([]float64, error) {
			m, err := semisens.NewPVMW(d, p, semisens.StreamNoise(st), nil)
			if err != nil {
				return nil, err
			}
			return stat(m, q)
		}
	}
	return PVMWAudit{A: sampler(a), B: sampler(b), Claim: claim}, nil
}
