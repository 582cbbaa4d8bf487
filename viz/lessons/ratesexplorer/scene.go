// Package ratesexplorer is lesson 11, the rates explorer: how the published
// error bounds move with n, m, d, ε and k, user level against item level,
// upper bounds against lower ones, with simulated runs.
package ratesexplorer

import (
	"math"
	"slices"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rates"
	"github.com/uldplab/uldp/viz"
)

// Scene is the rates explorer: the papers' error bounds as curves on log
// axes against one size (n, m, d, ε or k) at the others' settings, and
// simulated runs of user-level DP-SGD with outlier removal as points with
// 95% error bars, computed a slice per frame.
type Scene struct {
	family   rates.Family
	axis     rates.Axis
	n, m, d  int
	k        int
	eps      float64
	delta    float64
	simulate bool
	seeds    int

	job     *viz.Job
	pending bool                // a sweep to start at the next tick
	points  []rates.Measurement // the sweep's points computed so far
	sweep   []float64           // the sweep's values of the axis
	simErr  error               // why there are no points
	stat    float64             // the optimal bound's hidden constants for the simulation
	priv    float64
	simDone int     // runs done, of len(sweep)·seeds
	simFrac float64 // the share of the sweep's DP-SGD steps done

	list viz.List
}

// New opens on user-level bounds against n, with points.
func New() *Scene {
	r := &Scene{family: rates.UserLevel, axis: rates.AxisN, n: 1600, m: 4, d: 16, k: 100, eps: 0.5, delta: 1e-5, simulate: true, seeds: 12}
	r.restart()
	return r
}

// Info names the lesson.
func (r *Scene) Info() viz.Info {
	return viz.Info{Name: "rates", Title: "Rates explorer",
		Summary: "How the error bounds move with n, m, d and ε: user-level against item-level, upper bounds against lower ones, with simulated runs."}
}

// point is the sizes the sliders set.
func (r *Scene) point() rates.Point {
	return rates.Point{N: float64(r.n), M: float64(r.m), D: float64(r.d), Eps: r.eps, Delta: r.delta, K: float64(r.k)}
}

func (r *Scene) form() viz.Form {
	f := viz.Form{
		viz.Choose(&r.family, viz.Control{Name: "family", Label: "privacy", Choices: viz.ChoiceNames(rates.Families()),
			ChoiceHelp: map[string]string{
				string(rates.UserLevel):     "a user's m items are protected together (convex optimisation, excess population risk)",
				string(rates.SemiSensitive): "only each example's sensitive feature, one of k values, is protected; the other features are public (excess empirical risk)",
			}}),
		viz.Choose(&r.axis, viz.Control{Name: "axis", Label: "across", Choices: viz.ChoiceNames(rates.Axes(r.family)),
			Help: "the size the figure sweeps; the sliders set the others"}),
		viz.Int(&r.n, viz.Control{Name: "n", Label: "users n", Kind: viz.Slider, Min: 10, Max: 1e7, Log: true}),
		viz.Int(&r.m, viz.Control{Name: "m", Label: map[rates.Family]string{rates.UserLevel: "items per user m", rates.SemiSensitive: "problems m"}[r.family],
			Help: map[rates.Family]string{rates.UserLevel: "each user holds m items; all of them are protected together",
				rates.SemiSensitive: "m convex problems on the same data (say m regularisation strengths or label columns), all trained from one PVMW run's answers: the bound grows only like √(ln(mn))"}[r.family],
			Kind: viz.Slider, Min: 1, Max: 1e4, Log: true}),
		viz.Int(&r.d, viz.Control{Name: "d", Label: "dimension d", Kind: viz.Slider, Min: 1, Max: 1e6, Log: true}),
		viz.Float(&r.eps, viz.Control{Name: "eps", Label: "ε", Kind: viz.Slider, Min: 0.01, Max: 10, Log: true}),
		viz.Float(&r.delta, viz.Control{Name: "delta", Label: "δ", Kind: viz.Slider, Min: 1e-12, Max: 0.1, Log: true}),
	}
	if r.family == rates.SemiSensitive {
		return append(f, viz.Int(&r.k, viz.Control{Name: "k", Label: "sensitive values k", Kind: viz.Slider, Min: 2, Max: 1e6, Log: true}))
	}
	return append(f,
		viz.Bool(&r.simulate, viz.Control{Name: "simulate", Label: "simulated runs",
			Help: "user-level DP-SGD with outlier removal, on Gaussian data: the distance to the optimum, with 95% error bars"}),
		viz.Int(&r.seeds, viz.Control{Name: "seeds", Label: "runs per point", Kind: viz.Slider, Min: 4, Max: 256, Log: true}))
}

// Controls declares the explorer's inputs.
func (r *Scene) Controls() []viz.Control { return r.form().Controls() }

// Set changes one control; a family without the axis shown sweeps n.
func (r *Scene) Set(name, value string) error {
	next := *r
	next.job, next.points = nil, nil
	if err := next.form().Set(name, value); err != nil {
		return err
	}
	if !slices.Contains(rates.Axes(next.family), next.axis) {
		next.axis = rates.AxisN
	}
	if err := next.point().Check(); err != nil {
		return err
	}
	r.Stop()
	*r = next
	r.restart()
	return nil
}

// sweeps are the simulated values of each axis: wide enough to show a
// slope, and small enough that one DP-SGD step (ORME scores every pair of
// users) stays within a frame's budget in a browser tab, 3,200 users at
// most.
var sweeps = map[rates.Axis][]float64{
	rates.AxisN:   {200, 400, 800, 1600, 3200},
	rates.AxisM:   {1, 4, 16, 64},
	rates.AxisD:   {1, 2, 4, 8, 16},
	rates.AxisEps: {0.25, 0.5, 1, 2, 4, 8},
}

// restart prepares the simulation of the sweep the settings show, if any;
// the first tick starts it. Nothing runs before: a change of settings costs
// a frame nothing, settings changed in quick succession (a link, a slider
// dragged) start one sweep, not one each, and the sweep's coroutine is
// created on the thread that runs it (the desktop's ticks run on the
// main thread, locked; a coroutine must resume where it was made).
func (r *Scene) restart() {
	r.job, r.pending, r.points, r.simErr, r.sweep, r.simDone, r.simFrac = nil, false, nil, nil, nil, 0, 0
	if r.family != rates.UserLevel || !r.simulate {
		return
	}
	xs, ok := sweeps[r.axis]
	if !ok {
		return
	}
	p := r.point()
	for _, x := range xs {
		if err := rates.Simulable(r.axis.With(p, x)); err != nil {
			r.simErr = format.Errorf("no simulated runs at these settings: %v", err)
			return
		}
	}
	r.sweep = xs
	var err error
	if r.stat, r.priv, err = rates.Constants(r.axis.With(p, xs[len(xs)/2])); err != nil {
		r.simErr = err
		return
	}
	r.pending = true
}

// start starts the sweep restart prepared, from its first point: points
// adopted from a worker that then failed are computed again here.
func (r *Scene) start() {
	r.points, r.simErr, r.simDone, r.simFrac = nil, nil, 0, 0
	p, xs := r.point(), r.sweep
	per := int64(r.seeds * rates.SimSteps) // DP-SGD steps a point
	total := int64(len(xs)) * per
	r.job = viz.StartJob(func(ctx cancel.Context, progress func(done, total int64)) {
		for i, x := range xs {
			m, err := rates.Measure(ctx, r.axis.With(p, x), r.seeds, uint64(1000*i+1), func(done, _ int64) {
				r.simDone = int(int64(i)*per+done) / rates.SimSteps
				r.simFrac = float64(int64(i)*per+done) / float64(total)
				progress(int64(i)*per+done, total)
			})
			if err != nil {
				if ctx.Err() == nil {
					r.simErr = err
				}
				return
			}
			r.points = append(r.points, m)
		}
	})
}

// advance simulates for about budget milliseconds: viz.FrameSlice a frame,
// and the sweep reports every DP-SGD step, so a frame stays within 60 Hz.
func (r *Scene) advance(budget float64) {
	if r.job != nil && r.job.Run(budget) {
		r.job = nil
	}
}

// Stop ends the sweep under way; the points done stay.
func (r *Scene) Stop() {
	if r.job != nil {
		r.job.Stop()
		r.job = nil
	}
	r.pending = false
}

// Busy reports whether points are being simulated.
func (r *Scene) Busy() bool { return r.pending || r.job != nil }

// Live marks the figure as showing the simulation as it goes: its points
// appear as they are done, and its title says how many.
func (r *Scene) Live() {}

// Tick simulates a slice per frame; the points appear as they are done.
func (r *Scene) Tick(float64) bool {
	if r.pending {
		r.pending = false
		r.start()
	}
	if r.job == nil {
		return false
	}
	r.advance(viz.FrameSlice)
	return true
}

// Readouts are every bound's value and slope at the settings, and the
// simulation's points' slope against the optimal bound's.
func (r *Scene) Readouts() []viz.Readout {
	p := r.point()
	x := r.axisValue()
	var out []viz.Readout
	if r.Busy() {
		f := r.simFrac
		out = append(out, viz.Readout{Name: "computing", Label: "simulating", Value: f, Warn: true,
			Text: format.Sprintf("%d of %d runs, %.0f%% — points appear as they are done", r.simDone, len(r.sweep)*r.seeds, 100*f)})
	}
	for _, b := range rates.Bounds(r.family) {
		v := b.At(p)
		text := format.Sprintf("%.3g, slope %+.2f along %s", v, b.Slope(r.axis, p, x), axisSymbol(r.axis))
		if err := b.Holds(p); err != nil {
			text += "; " + err.Error()
		}
		out = append(out, viz.Readout{Name: b.ID, Label: b.Label, Value: v,
			Text:    text,
			Formula: string(b.Kind) + ": " + b.Formula + " — " + b.Note})
	}
	if r.family == rates.SemiSensitive {
		rule := rates.RuleOfThumb(p)
		if d, ok := rates.Crossover(p); ok {
			out = append(out, viz.Readout{Name: "crossover", Label: "full DP better below", Value: d,
				Text:    format.Sprintf("d* ≈ %.3g, where the curves cross; the rule of thumb √(ln k)·ε·n ≈ %.3g drops the logarithms", d, rule),
				Formula: "full DP's √(d ln(1/δ))/(εn) = PVMW's bound"})
		} else {
			out = append(out, viz.Readout{Name: "crossover", Label: "full DP better below", Value: math.Inf(1),
				Text: format.Sprintf("any d: full DP's bound stays below PVMW's here (rule of thumb √(ln k)·ε·n ≈ %.3g)", rule)})
		}
	}
	switch {
	case r.simErr != nil:
		out = append(out, viz.Readout{Name: "simulation", Label: "simulated runs", Text: r.simErr.Error(), Warn: true})
	case len(r.points) >= 2:
		var xs, ys []float64
		halted := 0
		for i, m := range r.points {
			halted += m.Halted
			if !math.IsNaN(m.RMS) {
				xs, ys = append(xs, r.sweep[i]), append(ys, m.RMS)
			}
		}
		if halted > 0 {
			out = append(out, viz.Readout{Name: "halted", Label: "runs halted", Value: float64(halted), Warn: true,
				Text: format.Sprintf("%d: the gate stopped them (too few users for ORME); hollow points leave them out", halted)})
		}
		if len(xs) < 2 {
			break
		}
		slope := rates.LogSlope(xs, ys)
		opt := r.fitted(r.axis.With(p, xs[0]))
		want := math.Log(r.fitted(r.axis.With(p, xs[len(xs)-1]))/opt) / math.Log(xs[len(xs)-1]/xs[0])
		out = append(out,
			viz.Readout{Name: "sim-slope", Label: "simulated slope", Value: slope,
				Text: format.Sprintf("%+.2f over %d points; the optimal bound's %+.2f there", slope, len(xs), want)},
			viz.Readout{Name: "constants", Label: "hidden constants", Value: r.priv,
				Text:    format.Sprintf("%.3g and %.3g for this simulation", r.stat, r.priv),
				Formula: "statistical and privacy terms of the optimal bound: the privacy one carries τ's and σ's logarithms"})
	}
	return out
}

// fitted is the optimal bound's shape with the simulation's constants.
func (r *Scene) fitted(p rates.Point) float64 { return rates.Fitted(p, r.stat, r.priv) }

func (r *Scene) axisValue() float64 { return r.axis.Of(r.point()) }

func axisSymbol(a rates.Axis) string {
	if a == rates.AxisEps {
		return "ε"
	}
	return string(a)
}

// Guarantee: the explorer releases nothing; its simulated runs are each
// user-level DP in paper mode, which is not what it is about.
func (r *Scene) Guarantee() privacy.Guarantee {
	return privacy.Guarantee{Eps: math.Inf(1), Mode: privacy.NonPrivate,
		Note: "no release: published bounds, and simulated runs to compare with them"}
}

// Pointer: the figure has nothing to drag.
func (r *Scene) Pointer(viz.Event) bool { return false }

// Describe says what the figure shows: every bound's curve across the
// chosen axis on log scales, each one's value at the current point, and
// the simulated runs.
func (r *Scene) Describe() string {
	ids := []string{"computing"}
	for _, b := range rates.Bounds(r.family) {
		ids = append(ids, b.ID)
	}
	ids = append(ids, "crossover", "halted", "simulation", "sim-slope")
	return format.Sprintf("The %s error bounds as curves across %s on log–log axes, at n = %d users, m = %d, d = %d, ε = %g, δ = %g; %d simulated points so far. At the current point: ",
		r.family, axisSymbol(r.axis), r.n, r.m, r.d, r.eps, r.delta, len(r.points)) +
		viz.Recite(r.Readouts(), ids...)
}

// ItemAction: the simulated points are there to be found, not moved.
func (r *Scene) ItemAction(int) viz.ItemAction { return viz.Shows }
