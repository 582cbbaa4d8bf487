// Package abovethreshold is lesson 3, AboveThreshold: one noisy threshold,
// fresh noise per query, halting at the first noisy query below the
// threshold, against the exact law of where it halts.
package abovethreshold

import (
	"math"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/figure"
)

// maxQueries bounds the stream so every bar stays wide enough to drag.
const maxQueries = 24

// simRuns is how many runs "simulate" draws for the empirical halting
// frequencies.
const simRuns = 10_000

// Scene is lesson 3: a stream of queries against one noisy
// threshold, halting at the first noisy query below it.
type Scene struct {
	eps, threshold float64
	queries        []float64
	mode           privacy.Mode
	streams        *rng.Streams

	player viz.Player
	result mech.ATResult
	exact  []float64 // halting distribution, T+1 entries
	sim    []int     // simulated halting counts, nil until simulated

	// The last Draw's layout and list, for turning pointer positions into
	// values; while a bar is dragged the value axis stays frozen.
	plot figure.Plot
	last *viz.List
	drag int // 1-based query being dragged, 0 if none
	// grab is the bar's value minus the value under the pointer when the
	// drag began, so the bar moves with the pointer instead of jumping to it.
	grab float64
}

// New returns the scene with its default stream.
func New() *Scene {
	s := &Scene{
		eps: 1, threshold: 10,
		queries: []float64{15, 13, 12, 11.5, 10.5, 12, 9, 13},
		// Seed 13 passes four queries and halts at the fifth, just above Δ:
		// a first run that shows both answers.
		streams: rng.New(13),
	}
	if err := s.rerun(); err != nil {
		panic(err) // the defaults above are valid
	}
	return s
}

// Info names the scene.
func (s *Scene) Info() viz.Info {
	return viz.Info{Name: "abovethreshold", Title: "AboveThreshold",
		Summary: "One noisy threshold, fresh noise per query, halt at the first noisy query below the threshold."}
}

// Player returns the stepper bar.
func (s *Scene) Player() *viz.Player { return &s.player }

func (s *Scene) params() mech.ATParams {
	return mech.ATParams{Eps: s.eps, Threshold: s.threshold, Mode: s.mode}
}

// run is the trace.Run the stepper branches: the queries are the users'
// values, one user per query.
func (s *Scene) run(ctx cancel.Context, d *dataset.Dataset, st *rng.Streams) (*trace.Trace, error) {
	qs := make([]float64, d.N())
	for i := range qs {
		qs[i] = d.Users[i].Points[0]
	}
	res, tr, err := mech.RunAboveThreshold(ctx, s.params(), qs, st)
	if err != nil {
		return nil, err
	}
	s.result = res
	return tr, nil
}

func (s *Scene) data() *dataset.Dataset {
	d := &dataset.Dataset{Dim: 1, Users: make([]dataset.User, len(s.queries))}
	for i, q := range s.queries {
		d.Users[i] = dataset.User{ID: strconv.Itoa(i + 1), Points: []float64{q}}
	}
	return d
}

// rerun runs again with the same streams, keeping the stepper position:
// the noise stays put and only the edited values move (common random numbers).
func (s *Scene) rerun() error {
	st, err := trace.NewStepper(cancel.Never, s.run, s.data(), s.streams)
	if err != nil {
		return err
	}
	s.player.Replace(st)
	// The noisy threshold, one step per query answered and the halt: where
	// the run halts is the lesson's question, so its length stays unsaid.
	s.player.Bound = len(s.queries) + 2
	s.exact = mech.ATHaltDistribution(s.params(), s.queries)
	s.sim = nil
	return nil
}

// form binds the scene's inputs.
func (s *Scene) form() viz.Form {
	return viz.Form{
		viz.Float(&s.eps, viz.Control{Name: "eps", Label: "ε", Kind: viz.Slider, Min: 0.05, Max: 20, Log: true,
			Help: "threshold noise Lap(2/ε), query noise Lap(4/ε)"}),
		viz.Float(&s.threshold, viz.Control{Name: "threshold", Label: "threshold Δ", Kind: viz.Slider, Min: -50, Max: 50, Step: 0.5}),
		viz.Numbers(&s.queries, viz.Control{Name: "queries", Label: "query values",
			Help: format.Sprintf("1 to %d numbers separated by commas; or drag the bars", maxQueries)}, "query", maxQueries),
		viz.StreamsSeed(&s.streams),
		viz.Mode(&s.mode, privacy.Paper, privacy.NonPrivate).
			Explained("the calibration is exact, so sound = paper").
			Described(map[string]string{
				privacy.Paper.String():      "Lap(2/ε) noise on the threshold, Lap(4/ε) on each query",
				privacy.NonPrivate.String(): "exact comparisons, no noise",
			}),
		viz.Action(viz.Control{Name: "reroll-threshold", Label: "re-roll threshold noise", Key: "t", Help: "new Λ, same query noise"},
			func() error { s.streams.Reroll(rng.ATThreshold); return nil }),
		viz.Action(viz.Control{Name: "reroll-queries", Label: "re-roll query noise", Key: "q", Help: "new ν's, same threshold"},
			func() error { s.streams.Reroll(rng.ATQuery); return nil }),
		viz.Action(viz.Control{Name: "simulate", Label: format.Sprintf("simulate %d runs", simRuns), Key: "m",
			Help: "empirical halting frequencies next to the exact ones"}, func() error { s.simulate(); return nil }),
	}
}

// Controls declares the scene's inputs.
func (s *Scene) Controls() []viz.Control { return s.form().Controls() }

// Set changes one control.
func (s *Scene) Set(name, value string) error {
	if err := s.form().Set(name, value); err != nil || name == "simulate" {
		return err
	}
	return s.rerun()
}

// simulate draws simRuns fresh runs from the scene's seed and counts where
// each halts.
func (s *Scene) simulate() {
	streams := s.streams.Fresh()
	counts := make([]int, len(s.queries)+1)
	for range simRuns {
		res, _, err := mech.RunAboveThreshold(cancel.Never, s.params(), s.queries, streams)
		if err != nil {
			return
		}
		if res.HaltedAt == 0 {
			counts[len(s.queries)]++
		} else {
			counts[res.HaltedAt-1]++
		}
	}
	s.sim = counts
}

// Readouts lists the numbers the lesson talks about.
func (s *Scene) Readouts() []viz.Readout {
	p := s.params()
	r := []viz.Readout{
		{Name: "threshold-scale", Label: "threshold noise scale", Value: p.ThresholdScale(), Text: format.Sprintf("%.4g", p.ThresholdScale()), Formula: "2/ε"},
		{Name: "query-scale", Label: "query noise scale", Value: p.QueryScale(), Text: format.Sprintf("%.4g", p.QueryScale()), Formula: "4/ε"},
		{Name: "noisy-threshold", Label: "noisy threshold Δ̂", Value: s.result.NoisyThreshold, Text: format.Sprintf("%.4g", s.result.NoisyThreshold), Formula: "Δ − Λ"},
		{Name: "p-all-pass", Label: "Pr[every query passes]", Value: s.exact[len(s.queries)], Text: format.Sprintf("%.4f", s.exact[len(s.queries)]),
			Formula: "∫ Lap density of Λ × Π_t Pr[ν_t ≥ Δ − Λ − q_t] dΛ"},
	}
	// The run's draws show only as the stepper reveals them: the readouts
	// must not give away what the next step is about to show.
	v := s.revealed()
	if v.threshold == nil {
		r[2].Value, r[2].Text = 0, "not drawn yet: step (→) to draw Λ"
	}
	var halted string
	switch {
	case v.halted:
		halted = format.Sprintf("⊥ at query %d (exact probability of that: %.4f)", s.result.HaltedAt, s.exact[s.result.HaltedAt-1])
	case v.current == len(s.queries):
		halted = "no ⊥: every query passed"
	case v.current > 0:
		halted = format.Sprintf("queries 1–%d passed so far", v.current)
	default:
		halted = "not run yet: step (→) through the queries"
	}
	r = append(r, viz.Readout{Name: "halted", Label: "this run", Value: float64(v.current), Text: halted})
	if s.sim != nil {
		worst := 0.0
		for k, c := range s.sim {
			worst = math.Max(worst, math.Abs(float64(c)/simRuns-s.exact[k]))
		}
		r = append(r, viz.Readout{Name: "sim-gap", Label: "largest |simulated − exact|", Value: worst, Text: format.Sprintf("%.4f over %d runs", worst, simRuns)})
	}
	return r
}

// Guarantee is ε-DP for the whole transcript (or none, non-private).
func (s *Scene) Guarantee() privacy.Guarantee { return s.params().Guarantee() }

// Trace returns the current run.
func (s *Scene) Trace() *trace.Trace { return s.player.Stepper().Trace() }

// Dataset returns the query values as a one-coordinate dataset, one user
// per query.
func (s *Scene) Dataset() *dataset.Dataset { return s.data() }

// Describe says what the figure shows: the queries as bars against the
// threshold, and the law of where the run halts.
func (s *Scene) Describe() string {
	vals := make([]string, len(s.queries))
	for i, q := range s.queries {
		vals[i] = format.Sprintf("%.4g", q)
	}
	return format.Sprintf("%d queries as bars, values %s, against the threshold Δ = %.4g, each with its probability of passing under it; below, the exact law of the query where the run halts, at ε = %g. ",
		len(s.queries), strings.Join(vals, ", "), s.threshold, s.eps) +
		viz.Recite(s.Readouts(), "noisy-threshold", "halted", "p-all-pass", "query-scale", "threshold-scale", "sim-gap")
}

// ItemName names a query's bar.
func (s *Scene) ItemName(id int) string {
	if id < 1 || id > len(s.queries) {
		return ""
	}
	return format.Sprintf("query %d's bar, value %.4g", id, s.queries[id-1])
}
