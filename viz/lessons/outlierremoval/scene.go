// Package outlierremoval is lesson 5, outlier removal: Paper B's ORME scores
// the crowd, passes a noisy gate, keeps users near the core on the keep ramp
// and releases a noisy mean.
package outlierremoval

import (
	"math"
	"slices"
	"strconv"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
)

// Scene is lesson 5: Paper B's outlier-removal mean estimation (ORME,
// Alg. 2) on one query. Users' values are points in the plane (their mean
// gradients, say): drag them, step through the concentration score, the
// noisy gate, the neighbour counts and keep ramp, the coin flips and the
// noisy mean of the users kept.
type Scene struct {
	preset string
	n      int
	users  [][]float64
	params mech.ORMEParams
	seed   uint64
	rings  bool

	// The neighbour: a copy in which one user may be moved. The same seed
	// gives every user the same coin in both runs, which is exactly the
	// coupling of Paper B's Lemma 3.4.
	nb     bool
	nbUser int       // the moved user (0-based), −1 none
	nbAt   []float64 // where it moved
	nbStep mech.ORMEStep

	player viz.Player
	step   mech.ORMEStep // the query's whole story
	cal    mech.ORMECalibration
	err    error

	cam   viz.Camera
	inset viz.Camera // the crowd's magnified view; W 0 when not shown
	list  viz.List
	grab  viz.Grab // of a user, 1-based
	// inInset is whether the grab began in the crowd's inset, whose user
	// may leave its window (the inset is redrawn as the user moves).
	inInset bool
}

// outlierPreset is a dataset and the settings that show one behaviour.
type outlierPreset struct {
	name, what string
	n          int
	tau, eps   float64
	gen        func(r interface{ NormFloat64() float64 }, n int) [][]float64
}

func blob(r interface{ NormFloat64() float64 }, n int, cx, cy, s float64) [][]float64 {
	out := make([][]float64, n)
	for j := range out {
		out[j] = []float64{cx + s*r.NormFloat64(), cy + s*r.NormFloat64()}
	}
	return out
}

func (p outlierPreset) PresetName() string { return p.name }

func outlierPresets() []outlierPreset {
	return []outlierPreset{
		{"outliers", "a tight crowd and two far users: the gate passes, the ramp drops the far ones", 30, 0.5, 8,
			func(r interface{ NormFloat64() float64 }, n int) [][]float64 {
				return append(blob(r, n-2, 0, 0, 0.08), []float64{1.6, 0.9}, []float64{-1.4, 1.3})
			}},
		{"concentrated", "everyone within τ of everyone: s = n, all kept, the exact mean plus noise", 30, 0.5, 8,
			func(r interface{ NormFloat64() float64 }, n int) [][]float64 { return blob(r, n, 0, 0, 0.08) }},
		{"two-clusters", "two crowds of equal size: no core holds 4n/5 of the users, the gate halts", 30, 0.5, 8,
			func(r interface{ NormFloat64() float64 }, n int) [][]float64 {
				return append(blob(r, n/2, -0.8, 0, 0.1), blob(r, n-n/2, 0.8, 0, 0.1)...)
			}},
		{"tau-too-small", "a fine crowd but τ below its spread: few pairs count, the gate halts", 30, 0.05, 8,
			func(r interface{ NormFloat64() float64 }, n int) [][]float64 { return blob(r, n, 0, 0, 0.12) }},
		{"heavy-tails", "users spread with heavy tails: a ragged ramp, many users only partly kept", 30, 0.5, 8,
			func(r interface{ NormFloat64() float64 }, n int) [][]float64 {
				out := blob(r, n, 0, 0, 0.12)
				for j := range out {
					w := math.Abs(r.NormFloat64()) + 0.05 // a Student-t-like scale mixture
					out[j][0] /= w * 1.6
					out[j][1] /= w * 1.6
				}
				return out
			}},
		{"circle", "erratum A15's counterexample: 12 users on a circle, 3 neighbours each side within 2τ: every p = 1/2", 12, 0.5, 8,
			func(_ interface{ NormFloat64() float64 }, n int) [][]float64 {
				rho := 1 / (2 * math.Sin(3.5*math.Pi/12))
				out := make([][]float64, n)
				for j := range out {
					a := 2 * math.Pi * float64(j) / float64(n)
					out[j] = []float64{rho * math.Cos(a), rho * math.Sin(a)}
				}
				return out
			}},
		{"too-few-users", "8 users at ε = 1: the gate's noise dwarfs n/5 and the proof wants n ≥ 40 ln(4T/δ)/ε", 8, 0.5, 1,
			func(r interface{ NormFloat64() float64 }, n int) [][]float64 { return blob(r, n, 0, 0, 0.1) }},
	}
}

// outlierMaxUsers keeps the figure readable and the drag smooth.
const outlierMaxUsers = 300

// New opens on the outliers preset at ε = 8, δ = 0.1, τ = 0.5, with
// seed 2, on which the gate passes, as it does 93% of the time here (seed
// 1 draws one of the other 7%; S shows both).
func New() *Scene {
	s := &Scene{params: mech.ORMEParams{Eps: 8, Delta: 0.1, Tau: 0.5, Queries: 1}, seed: 2, nbUser: -1}
	s.load(outlierPresets()[0], 0)
	s.params.Tau, s.params.Eps = outlierPresets()[0].tau, outlierPresets()[0].eps
	s.rerun()
	return s
}

// load draws a preset's users from their own fixed stream (the seed
// control moves the mechanism's draws only); n 0 is the preset's count.
func (s *Scene) load(p outlierPreset, n int) {
	if n == 0 {
		n = p.n
	}
	s.preset, s.n = p.name, n
	s.users = p.gen(rng.New(7).Get(rng.Data), n)
	s.nbUser, s.nbAt = -1, nil
}

// Info names the scene.
func (s *Scene) Info() viz.Info {
	return viz.Info{Name: "outlier-removal", Title: "Outlier removal",
		Summary: "Paper B's ORME: score the crowd, pass a noisy gate, keep users near the core, release a noisy mean."}
}

// Player returns the stepper bar.
func (s *Scene) Player() *viz.Player { return &s.player }

func (s *Scene) data() *dataset.Dataset {
	d := &dataset.Dataset{Dim: 2, Users: make([]dataset.User, len(s.users))}
	for j, u := range s.users {
		d.Users[j] = dataset.User{ID: strconv.Itoa(j + 1), Points: slices.Clone(u)}
	}
	return d
}

// rerun recomputes the query with the same seed: moving a user keeps the
// gate's noise and every other user's coin.
func (s *Scene) rerun() {
	p := s.params
	run := func(_ cancel.Context, d *dataset.Dataset, st *rng.Streams) (*trace.Trace, error) {
		rec := trace.NewRecorder("orme", st.Seed())
		o, err := mech.NewORME(p, d.N(), st, rec)
		if err != nil {
			return nil, err
		}
		step, err := o.Query(d.Means())
		if err != nil {
			return nil, err
		}
		s.step, s.cal = step, o.Calibration()
		return rec.Trace(), nil
	}
	st, err := trace.NewStepper(cancel.Never, run, s.data(), rng.New(s.seed))
	s.err = err
	if err != nil {
		return
	}
	s.player.Replace(st)
	s.nbStep = mech.ORMEStep{}
	if s.nb {
		// Same seed: the gate's noise and every user's coin are shared.
		o, err := mech.NewORME(p, s.n, rng.New(s.seed), nil)
		if err == nil {
			s.nbStep, err = o.Query(s.neighbour())
		}
		if err != nil {
			s.err = err
		}
	}
}

// neighbour returns the users with the neighbour's one change.
func (s *Scene) neighbour() [][]float64 {
	out := slices.Clone(s.users)
	if s.nbUser >= 0 {
		out[s.nbUser] = s.nbAt
	}
	return out
}

// keepDistance is ‖p − p′‖₁ and |S Δ S′| between the run and its neighbour.
func (s *Scene) keepDistance() (float64, int) {
	var l1 float64
	for j, p := range s.step.Keep {
		l1 += math.Abs(p - s.nbStep.Keep[j])
	}
	in := map[int]int{}
	for _, j := range s.step.Kept {
		in[j]++
	}
	for _, j := range s.nbStep.Kept {
		in[j]++
	}
	diff := 0
	for _, c := range in {
		if c == 1 {
			diff++
		}
	}
	return l1, diff
}

// form binds the scene's inputs.
func (s *Scene) form() viz.Form {
	return viz.Form{
		viz.Choose(&s.preset, viz.Control{Name: "preset", Label: "users", Choices: viz.PresetNames(outlierPresets()),
			Help: viz.PresetByName(outlierPresets(), s.preset).what}),
		viz.Int(&s.n, viz.Control{Name: "n", Label: "users n", Kind: viz.Slider, Min: 4, Max: outlierMaxUsers}),
		viz.Float(&s.params.Tau, viz.Control{Name: "tau", Label: "τ", Kind: viz.Slider, Min: 0.01, Max: 5, Log: true,
			Help: "pairs within τ make the score; neighbours within 2τ the ramp"}),
		viz.Float(&s.params.Eps, viz.Control{Name: "eps", Label: "ε", Kind: viz.Slider, Min: 0.1, Max: 20, Log: true}),
		viz.Float(&s.params.Delta, viz.Control{Name: "delta", Label: "δ", Kind: viz.Slider, Min: 1e-10, Max: 0.5, Log: true}),
		viz.Mode(&s.params.Mode, privacy.Paper, privacy.Sound, privacy.NonPrivate).Labelled("constants"),
		viz.Bool(&s.rings, viz.Control{Name: "rings", Label: "every user's τ ring", Key: "g",
			Help: "otherwise only the user under the pointer shows its τ and 2τ rings"}),
		viz.Bool(&s.nb, viz.Control{Name: "neighbour", Label: "neighbour", Key: "n",
			Help: "drag one user in a copy: both keep ramps, ‖p − p′‖₁ against its bounds, and the coupled coins"}),
		viz.Seed(&s.seed),
	}
}

// Controls declares the scene's inputs.
func (s *Scene) Controls() []viz.Control { return s.form().Controls() }

// Set changes one control; a value the run refuses leaves the lesson as it
// was.
func (s *Scene) Set(name, value string) error {
	next := *s
	if err := next.form().Set(name, value); err != nil {
		return err
	}
	preset := viz.PresetByName(outlierPresets(), next.preset)
	switch name {
	case "rings":
		*s = next // the drawing only
		return nil
	case "preset":
		next.load(preset, 0)
		next.params.Tau, next.params.Eps = preset.tau, preset.eps
	case "n":
		next.load(preset, next.n)
	}
	next.rerun()
	if next.err != nil {
		return next.err
	}
	*s = next
	return nil
}

// Readouts lists the query's numbers.
func (s *Scene) Readouts() []viz.Readout {
	if s.err != nil {
		return viz.FailedReadouts("cannot run", s.err)
	}
	st, c := s.step, s.cal
	n := float64(s.n)
	r := []viz.Readout{
		{Name: "score", Label: "score s", Value: st.Score, Text: format.Sprintf("%.4g of n = %d (gate at 4n/5 = %.4g; the proof needs 2n/3 = %.4g)", st.Score, s.n, 0.8*n, 2*n/3),
			Formula: "(1/n)·#{(j, k): ‖v_j − v_k‖ ≤ τ}"},
		{Name: "p-pass", Label: "Pr[gate passes]", Value: st.PPass, Text: format.Sprintf("%.4g", st.PPass),
			Formula: format.Sprintf("Pr[Lap(%.3g) + Lap(%.3g) ≥ 4n/5 − s]", c.ThresholdScale, c.QueryScale)},
		{Name: "sigma", Label: "σ", Value: c.Sigma, Text: format.Sprintf("%.4g", c.Sigma), Formula: c.SigmaFormula()},
	}
	if !s.shown(mech.KindORMEKeep) && !s.shown(mech.KindORMEHalt) {
		return r
	}
	if !st.Passed {
		return append(r, viz.Readout{Name: "outcome", Label: "outcome", Text: "the gate failed: output 0 and halt (DP-SGD returns θ₀)", Warn: true})
	}
	r = append(r, viz.Readout{Name: "kept", Label: "kept", Value: float64(len(st.Kept)), Text: format.Sprintf("%d of %d users", len(st.Kept), s.n)})
	if s.nb && s.nbStep.Keep != nil {
		l1, diff := s.keepDistance()
		bound := 1 + 6*(n-1)/n
		r = append(r, viz.Readout{Name: "keep-distance", Label: "‖p − p′‖₁", Value: l1, Warn: l1 > 2,
			Text: format.Sprintf("%.4g (Lemma 3.3 says ≤ 2; the ramp's slope allows up to 1 + 6(n−1)/n = %.4g); coins that fell differently: %d", l1, bound, diff)})
	}
	if s.shown(mech.KindORMERelease) {
		bias := math.Hypot(st.Mean[0]-st.AllMean[0], st.Mean[1]-st.AllMean[1])
		r = append(r,
			viz.Readout{Name: "bias", Label: "‖kept mean − all users' mean‖", Value: bias, Text: format.Sprintf("%.4g", bias)},
			viz.Readout{Name: "output", Label: "released ĝ", Text: format.Sprintf("(%.4g, %.4g)", st.Output[0], st.Output[1])})
	}
	return r
}

// shown reports whether a step of the kind has been revealed.
func (s *Scene) shown(k trace.Kind) bool {
	for _, st := range s.player.Stepper().Shown() {
		if st.Kind == k {
			return true
		}
	}
	return false
}

// Guarantee is the run's.
func (s *Scene) Guarantee() privacy.Guarantee {
	if s.err != nil {
		return privacy.Guarantee{Eps: math.Inf(1), Mode: s.params.Mode, Note: s.err.Error()}
	}
	return s.cal.Guarantee()
}

// Trace returns the run.
func (s *Scene) Trace() *trace.Trace {
	if st := s.player.Stepper(); st != nil {
		return st.Trace()
	}
	return nil
}

// Dataset returns the users' values.
func (s *Scene) Dataset() *dataset.Dataset { return s.data() }

// LoadDataset replaces the users (one 2-D point each) and reruns with the
// same seed.
func (s *Scene) LoadDataset(d *dataset.Dataset) error {
	if d.Dim != 2 || d.N() != len(s.users) {
		return format.Errorf("the lesson has %d users in 2-D, the dataset %d in %d-D", len(s.users), d.N(), d.Dim)
	}
	users := make([][]float64, d.N())
	for j := range users {
		if len(d.Users[j].Points) != 2 {
			return format.Errorf("user %s has %d items; this lesson's users have one", d.Users[j].ID, len(d.Users[j].Points)/2)
		}
		users[j] = slices.Clone(d.Users[j].Points)
	}
	s.users = users
	s.rerun()
	return nil
}

// Describe says what the figure shows: the users, the gate's score, and
// once the ramp is shown, how many users it keeps whole, in part, or not.
func (s *Scene) Describe() string {
	ramp := ""
	if s.shown(mech.KindORMEKeep) && s.step.Passed {
		var whole, part, none int
		for _, p := range s.step.Keep {
			switch {
			case p >= 1:
				whole++
			case p > 0:
				part++
			default:
				none++
			}
		}
		ramp = format.Sprintf(" The keep ramp keeps %d users for sure, %d with a probability between 0 and 1, and drops %d.", whole, part, none)
	}
	return format.Sprintf("%d users' vectors as points in the plane, at τ = %.4g and ε = %g: a user counts its neighbours within τ, and the score is the average count.%s ",
		s.n, s.params.Tau, s.params.Eps, ramp) +
		viz.Recite(s.Readouts(), "score", "p-pass", "sigma", "outcome", "kept", "keep-distance", "bias", "output")
}

// ItemName names a user's point, in the main view or in the crowd's
// magnified inset.
func (s *Scene) ItemName(id int) string {
	where := ""
	if id > len(s.users) {
		id, where = id-len(s.users), " (in the magnified inset)"
	}
	if id < 1 || id > len(s.users) {
		return ""
	}
	if s.nb && s.nbUser == id-1 && where == "" { // its marker is on top
		return format.Sprintf("user %d's place in the neighbour, at (%.3f, %.3f)", id, s.nbAt[0], s.nbAt[1])
	}
	u := s.users[id-1]
	return format.Sprintf("user %d at (%.3f, %.3f)%s", id, u[0], u[1], where)
}
