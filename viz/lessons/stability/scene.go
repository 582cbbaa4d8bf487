// Package stability is lesson 4, the TDLap stability test of Paper A's
// DelOutputPert: the fewest users whose deletion leaves a stable dataset, the
// noisy test, then a release with noise or ⊥.
package stability

import (
	"math"
	"slices"
	"strconv"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// stabilityMaxUsers keeps the exact search interactive while dragging.
const stabilityMaxUsers = 18

// Scene is lesson 4: DelOutputPert's TDLap stability test (Paper A,
// Alg. 1) on users with one value each. Drag users, step through the run,
// and open the neighbour lens to compare two output laws exactly.
type Scene struct {
	values  []float64
	params  mech.DelParams
	streams *rng.Streams

	player viz.Player
	result mech.DelResult
	law    mech.DelLaw
	err    error // the law could not be computed (shown, not fatal)

	lens      bool
	neighbour []float64 // the lens's copy: differs from values in one user at most
	lensLaw   mech.DelLaw
	lensErr   error

	// Layout and drag state.
	last *viz.List
	axis figure.NumberLine // the users' number line
	drag int               // 1-based user (negative: in the lens row), 0 none
	grab float64           // pixel offset of the grab from the user
}

// New returns the lesson on spec 000-002 §9.2's first row: 13 close
// users and one at 10, ε = 8, δ = 0.1, Δ = 0.1 (κ = 3).
func New() *Scene {
	s := &Scene{
		values:  append(mech.ExampleInliers(), 10),
		params:  mech.DelParams{Eps: 8, Delta: 0.1, Sens: 0.1},
		streams: rng.New(1),
	}
	s.rerun()
	return s
}

// Info names the scene.
func (s *Scene) Info() viz.Info {
	return viz.Info{Name: "stability", Title: "TDLap stability test",
		Summary: "DelOutputPert: find the fewest users whose deletion leaves a stable dataset, then release with noise — or ⊥."}
}

// Player returns the stepper bar.
func (s *Scene) Player() *viz.Player { return &s.player }

// rerun recomputes the run (same streams: R1 and the noise stay put while
// users move) and the lens's law. Errors are kept and shown.
func (s *Scene) rerun() {
	ctx := cancel.Never
	run := func(ctx cancel.Context, d *dataset.Dataset, st *rng.Streams) (*trace.Trace, error) {
		res, tr, err := mech.DelOutputPert(ctx, s.params, d, st, nil)
		if err == nil {
			s.result, s.law = res, res.Law
		}
		return tr, err
	}
	st, err := trace.NewStepper(ctx, run, dataset.Values(s.values), s.streams)
	s.err = err
	if err == nil {
		s.player.Replace(st)
	}
	s.lensErr = nil
	if s.lens {
		s.lensLaw, s.lensErr = mech.DelOutputPertLaw(ctx, s.params, dataset.Values(s.neighbour), nil)
	}
}

// form binds the scene's inputs.
func (s *Scene) form() viz.Form {
	return viz.Form{
		viz.Float(&s.params.Eps, viz.Control{Name: "eps", Label: "ε", Kind: viz.Slider, Min: 1.39, Max: 20, Log: true,
			Help: "κ = 1 + ⌈ln(1/δ̄)/ε̄⌉ must stay ≤ 4 for the exact search: from ε = 1.39 at δ = 0.5, from ε = 2.72 at δ = 0.1; κ = 3 from ε = 2.35 at δ = 0.5, from ε = 4.93 at δ = 0.1. A run needs n ≥ 4κ + 2 users: the 14 it opens with allow κ = 3 only, so add users to go lower"}),
		viz.Float(&s.params.Delta, viz.Control{Name: "delta", Label: "δ", Kind: viz.Slider, Min: 1e-4, Max: 0.5, Log: true}),
		viz.Float(&s.params.Sens, viz.Control{Name: "sens", Label: "target Δ", Kind: viz.Slider, Min: 0.001, Max: 10, Log: true,
			Help: "the deletion sensitivity the noise is calibrated to"}),
		viz.Numbers(&s.values, viz.Control{Name: "values", Label: "user values",
			Help: format.Sprintf("one number per user, up to %d; or drag the users", stabilityMaxUsers)}, "user", stabilityMaxUsers),
		viz.StreamsSeed(&s.streams),
		viz.Bool(&s.lens, viz.Control{Name: "lens", Label: "neighbour lens", Key: "l",
			Help: "a copy of the data in which you may move one user: both output laws and the exact δ(ε)"}),
		viz.Action(viz.Control{Name: "reroll-r1", Label: "re-draw R1 only", Help: "new TDLap draw, same Gaussian noise"},
			func() error { s.streams.Reroll(rng.TDLap); return nil }),
		viz.Action(viz.Control{Name: "reroll-noise", Label: "re-draw the noise only", Help: "new Gaussian draw, same R1"},
			func() error { s.streams.Reroll(rng.Gauss); return nil }),
	}
}

// Controls declares the scene's inputs.
func (s *Scene) Controls() []viz.Control { return s.form().Controls() }

// Set changes one control; settings the exact search cannot run leave the
// lesson as it was.
func (s *Scene) Set(name, value string) error {
	next := *s
	if err := next.form().Set(name, value); err != nil {
		return err
	}
	cal, err := next.params.DelCalibration()
	if err != nil {
		return err
	}
	switch need := 4*cal.Kappa + 2; {
	case len(next.values) < need && name == "values":
		return format.Errorf("%d users: κ = %d needs at least 4κ+2 = %d", len(next.values), cal.Kappa, need)
	case len(next.values) < need:
		return format.Errorf("at these ε, δ κ = %d, and %d users are fewer than 4κ+2 = %d: raise ε or δ", cal.Kappa, len(next.values), need)
	case 4*cal.Kappa > 16:
		return format.Errorf("at these ε, δ κ = %d: the exact search over %d deletions is too slow to drag; raise ε or δ", cal.Kappa, 4*cal.Kappa)
	}
	if name == "values" || len(next.neighbour) != len(next.values) {
		next.neighbour = slices.Clone(next.values)
	}
	next.rerun()
	*s = next
	return nil
}

// Readouts lists the numbers of the run (and of the lens).
func (s *Scene) Readouts() []viz.Readout {
	if s.err != nil {
		return viz.FailedReadouts("cannot run", s.err)
	}
	l := s.law
	f := func(x float64) string { return format.Sprintf("%.4g", x) }
	rstar := "none ≤ 2κ: ⊥ for sure"
	if l.RStar >= 0 {
		rstar = format.Sprintf("%d (remove %s)", l.RStar, userList(l.Removed))
	}
	cert := format.Sprintf("%.4g > Δ: not certified, searched", l.Bound)
	if l.Certified {
		cert = format.Sprintf("%.4g ≤ Δ: certified stable, no search", l.Bound)
	}
	r := []viz.Readout{
		{Name: "kappa", Label: "κ", Value: float64(l.Kappa), Text: strconv.Itoa(l.Kappa), Formula: "1 + ⌈ln(1/δ̄)/ε̄⌉"},
		{Name: "sigma", Label: "σ", Value: l.Sigma, Text: f(l.Sigma), Formula: "16κΔ√ln(2/δ̄)/ε̄"},
		{Name: "certificate", Label: "certificate 2(4κ+1)γ_c/(n−4κ−1)", Value: l.Bound, Text: cert},
		{Name: "rstar", Label: "r*", Value: float64(l.RStar), Text: rstar},
		{Name: "p-bottom", Label: "Pr[⊥]", Value: l.PBottom, Text: format.Sprintf("%.4g", l.PBottom), Formula: "Pr[R1 < r*] under TDLap"},
	}
	if s.lens {
		if s.lensErr != nil {
			return append(r, viz.Readout{Name: "lens", Label: "neighbour", Text: s.lensErr.Error(), Warn: true})
		}
		pt := s.lensAtEps()
		r = append(r,
			viz.Readout{Name: "lens-rstar", Label: "neighbour r*, Pr[⊥]", Value: float64(s.lensLaw.RStar), Text: format.Sprintf("%d, %.4g", s.lensLaw.RStar, s.lensLaw.PBottom)},
			viz.Readout{Name: "lens-delta", Label: format.Sprintf("exact δ at ε = %g", s.params.Eps), Value: math.Max(pt.DeltaAB, pt.DeltaBA),
				Text: format.Sprintf("%.3g and %.3g (promised %g): %s", pt.DeltaAB, pt.DeltaBA, s.params.Delta, pt.Verdict), Warn: pt.Verdict == audit.Violation})
	}
	return r
}

// lensAtEps is the exact profile between the data and the lens's
// neighbour at the claimed ε.
func (s *Scene) lensAtEps() audit.Point {
	return audit.Curve(s.law, s.lensLaw, s.result.Guarantee, []float64{s.params.Eps})[0]
}

func userList(idx []int) string {
	ids := make([]string, len(idx))
	for i, u := range idx {
		ids[i] = strconv.Itoa(u + 1)
	}
	return trace.Users(ids)
}

// Guarantee is the run's.
func (s *Scene) Guarantee() privacy.Guarantee { return s.result.Guarantee }

// Trace returns the run.
func (s *Scene) Trace() *trace.Trace {
	if st := s.player.Stepper(); st != nil {
		return st.Trace()
	}
	return nil
}

// Dataset returns the users' values.
func (s *Scene) Dataset() *dataset.Dataset { return dataset.Values(s.values) }

// influence returns each user's deletion influence ‖f(x) − f(x₋i)‖.
func influence(values []float64) []float64 {
	var sum float64
	for _, v := range values {
		sum += v
	}
	n := float64(len(values))
	out := make([]float64, len(values))
	for i, v := range values {
		out[i] = math.Abs(sum/n - (sum-v)/(n-1))
	}
	return out
}

// tdlapPMF is the pmf of R1 for the current parameters.
func (s *Scene) tdlapPMF() []float64 {
	cal, err := s.params.DelCalibration()
	if err != nil {
		return nil
	}
	td, err := noise.NewTDLapKappa(cal.EpsBar, cal.Kappa, nil)
	if err != nil {
		return nil
	}
	out := make([]float64, 2*cal.Kappa+1)
	for x := range out {
		out[x] = td.PMF(x)
	}
	return out
}

// Describe says what the figure shows: the users on a number line and the
// stability test's numbers.
func (s *Scene) Describe() string {
	lo, hi := s.values[0], s.values[0]
	for _, v := range s.values {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	lens := ""
	if s.lens {
		lens = " A second row shows a neighbour x′, one user changed, and how its law differs."
	}
	return format.Sprintf("%d users' values on a number line from %.4g to %.4g, with the target sensitivity Δ = %g at ε = %g, δ = %g.%s ",
		len(s.values), lo, hi, s.params.Sens, s.params.Eps, s.params.Delta, lens) +
		viz.Recite(s.Readouts(), "kappa", "sigma", "certificate", "rstar", "p-bottom", "lens-rstar", "lens-delta", "lens")
}

// ItemName names a user's point, in the main row or the lens's.
func (s *Scene) ItemName(id int) string {
	row, i := "", id-1
	if id > lensID {
		row, i = "the neighbour's ", id-lensID-1
	}
	if i < 0 || i >= len(s.values) {
		return ""
	}
	v := s.values[i]
	if row != "" {
		v = s.neighbour[i]
	}
	return format.Sprintf("%suser %d at %.4g", row, i+1, v)
}
