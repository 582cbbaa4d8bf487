// Package userlevel is lesson 1, "Why user-level?": one user holds many
// items, so compare how far one item and one user can move the mean, the
// median and the trimmed mean.
package userlevel

import (
	"math"
	"slices"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/core/trace"
	"github.com/uldplab/uldp/viz"
)

// Scene is lesson 1, "Why user-level?": n users each holding m items in
// the plane. Drag an item or a whole user (by its mean) and watch the mean,
// the coordinate median and the trimmed mean, and the two sensitivity balls:
// how far one changed item, or one changed user, can move the mean.
type Scene struct {
	spec   dataset.Spec
	seed   uint64
	radius float64 // R: the domain the worst-case sensitivities assume
	trim   float64

	data                  *dataset.Dataset
	means                 [][]float64
	mean, median, trimmed []float64
	rms, maxInfluence     float64
	outside               int

	// sorted[k] holds the users' mean coordinate k in increasing order, kept
	// up to date during drags so the median and trimmed mean cost O(n).
	sorted [2][]float64
	dots   []viz.Point // scratch for one user's screen points

	cam      viz.Camera
	fitted   bool // false: fit the camera to the data at the next Draw
	fitW     float64
	fitH     float64 // the frame the camera was fitted to
	list     viz.List
	drag     dragKind
	dragUser int
	dragItem int
	lastX    float64 // world position of the pointer at the last drag event
	lastY    float64
	panX     float64 // pixel position of the pointer while panning
	panY     float64
}

type dragKind uint8

const (
	dragNone dragKind = iota
	dragItem
	dragUser
	dragPan
)

// Limits of the playground's controls.
const (
	playMaxUsers = 2000
	playMaxItems = 50
)

// New returns the lesson with 20 users × 10 items.
func New() *Scene {
	p := &Scene{spec: dataset.Spec{Kind: dataset.Gaussian, N: 20, M: 10, D: 2, Spread: 1}, seed: 1, radius: 5, trim: 0.1}
	if err := p.regenerate(); err != nil {
		panic(err) // the defaults above are valid
	}
	return p
}

// Info names the scene.
func (p *Scene) Info() viz.Info {
	return viz.Info{Name: "user-level", Title: "Why user-level?",
		Summary: "One user holds many items: compare how far one item and one user can move the mean."}
}

func (p *Scene) regenerate() error {
	d, err := dataset.Generate(p.spec, rng.New(p.seed))
	if err != nil {
		return err
	}
	p.data = d
	p.fitted = false
	p.recompute()
	return nil
}

// recompute refreshes every statistic after the data changed.
func (p *Scene) recompute() {
	n := p.data.N()
	if len(p.means) != n {
		p.means = make([][]float64, n)
		for i := range p.means {
			p.means[i] = make([]float64, 2)
		}
	}
	for k := range p.sorted {
		p.sorted[k] = p.sorted[k][:0]
	}
	for i := range p.means {
		p.data.UserMean(i, p.means[i])
		for k := range p.sorted {
			p.sorted[k] = append(p.sorted[k], p.means[i][k])
		}
	}
	for k := range p.sorted {
		slices.Sort(p.sorted[k])
	}
	p.updateSummary()
}

// updateSummary recomputes the statistics of the user means from the sorted
// columns: O(n) for the summaries, O(nm) for the items outside the domain.
func (p *Scene) updateSummary() {
	n := float64(p.data.N())
	if p.mean == nil {
		p.mean, p.median, p.trimmed = make([]float64, 2), make([]float64, 2), make([]float64, 2)
	}
	for k, col := range p.sorted {
		var sum float64
		for _, v := range col {
			sum += v
		}
		p.mean[k] = sum / n
		p.median[k] = robust.MedianSorted(col)
		p.trimmed[k] = robust.TrimmedMeanSorted(col, p.trim)
	}
	var ss, worst float64
	for _, u := range p.means {
		dx, dy := u[0]-p.mean[0], u[1]-p.mean[1]
		d2 := dx*dx + dy*dy
		ss += d2
		worst = math.Max(worst, d2)
	}
	p.rms = math.Sqrt(ss / n)
	// Deleting user i moves the mean of user means by ‖ū_i − x̄‖/(n−1).
	p.maxInfluence = 0
	if n > 1 {
		p.maxInfluence = math.Sqrt(worst) / (n - 1)
	}
	p.outside = 0
	r2 := p.radius * p.radius
	for i := range p.data.Users {
		for j := range p.data.Items(i) {
			it := p.data.Item(i, j)
			dx, dy := it[0]-p.mean[0], it[1]-p.mean[1]
			if dx*dx+dy*dy > r2 {
				p.outside++
			}
		}
	}
}

// Sensitivities of the mean of user means, for data in a ball of radius R:
// changing one item moves it by at most 2R/(nm); changing one user by 2R/n.
func (p *Scene) itemSens() float64 {
	return 2 * p.radius / float64(p.spec.N*p.spec.M)
}

func (p *Scene) userSens() float64 { return 2 * p.radius / float64(p.spec.N) }

// form binds the scene's inputs.
func (p *Scene) form() viz.Form {
	return viz.Form{
		viz.Choose(&p.spec.Kind, viz.Control{Name: "kind", Label: "data", Choices: dataset.Kinds,
			Help: "how items are drawn and dealt to users",
			ChoiceHelp: map[string]string{
				dataset.Gaussian:    "i.i.d. Gaussian items dealt to users at random, the papers' data model",
				dataset.Clusters:    "each user draws all its items around one of two centres",
				dataset.HeavyTail:   "i.i.d. Student-t items: now and then one lands far out",
				dataset.Outliers:    "Gaussian users and one user whose items all sit far away",
				dataset.Homogeneous: "each user repeats one point m times: its mean does not concentrate as m grows",
			}}),
		viz.Int(&p.spec.N, viz.Control{Name: "n", Label: "users n", Kind: viz.Slider, Min: 2, Max: playMaxUsers, Log: true}),
		viz.Int(&p.spec.M, viz.Control{Name: "m", Label: "items per user m", Kind: viz.Slider, Min: 1, Max: playMaxItems}),
		viz.Float(&p.spec.Spread, viz.Control{Name: "spread", Label: "item spread σ", Kind: viz.Slider, Min: 0.05, Max: 5, Log: true}),
		viz.Float(&p.radius, viz.Control{Name: "radius", Label: "domain radius R", Kind: viz.Slider, Min: 0.5, Max: 100, Log: true,
			Help: "the sensitivities assume every item lies within R of the mean"}),
		viz.Float(&p.trim, viz.Control{Name: "trim", Label: "trim fraction", Kind: viz.Slider, Min: 0, Max: 0.45, Step: 0.05}),
		viz.Seed(&p.seed),
		viz.Action(viz.Control{Name: "fit", Label: "fit the view to the data", Key: "f"}, func() error { p.fitted = false; return nil }),
	}
}

// Controls declares the scene's inputs.
func (p *Scene) Controls() []viz.Control { return p.form().Controls() }

// Set changes one control; a value the lesson refuses leaves it as it was.
func (p *Scene) Set(name, value string) error {
	next := *p
	if err := next.form().Set(name, value); err != nil {
		return err
	}
	switch name {
	case "radius", "trim":
		next.updateSummary()
	case "fit":
	default:
		if err := next.regenerate(); err != nil {
			return err
		}
	}
	*p = next
	return nil
}

// Readouts lists the numbers the lesson talks about.
func (p *Scene) Readouts() []viz.Readout {
	// The number shown belongs to the formula beside it: σ√(d/m) for
	// i.i.d. items, σ√d for homogeneous users (d = 2).
	m := float64(p.spec.M)
	spread := format.Sprintf("≈ σ√(d/m) = %.3g for i.i.d. items; σ√d for homogeneous users", p.spec.Spread*math.Sqrt(2/m))
	if p.spec.Kind == dataset.Homogeneous {
		spread = format.Sprintf("≈ σ√d = %.3g for homogeneous users; σ√(d/m) for i.i.d. items", p.spec.Spread*math.Sqrt(2))
	}
	f := func(x float64) string { return format.Sprintf("%.4g", x) }
	r := []viz.Readout{
		{Name: "item-sens", Label: "item-level sensitivity of the mean", Value: p.itemSens(), Text: f(p.itemSens()), Formula: "2R/(nm): one item changes"},
		{Name: "user-sens", Label: "user-level sensitivity of the mean", Value: p.userSens(), Text: f(p.userSens()), Formula: "2R/n: one user's m items change — m times larger"},
		{Name: "rms", Label: "spread of the user means (RMS)", Value: p.rms, Text: f(p.rms),
			Formula: spread},
		{Name: "influence", Label: "largest influence of deleting one user", Value: p.maxInfluence, Text: f(p.maxInfluence),
			Formula: "max ‖ū_i − x̄‖/(n−1): far below 2R/n when users agree (Paper A's deletion sensitivity)"},
		{Name: "mean", Label: "mean of user means", Value: p.mean[0], Text: format.Sprintf("(%.3f, %.3f)", p.mean[0], p.mean[1])},
		{Name: "median", Label: "coordinate median", Value: p.median[0], Text: format.Sprintf("(%.3f, %.3f)", p.median[0], p.median[1])},
		{Name: "trimmed", Label: format.Sprintf("trimmed mean (%.0f%% each side)", 100*p.trim), Value: p.trimmed[0], Text: format.Sprintf("(%.3f, %.3f)", p.trimmed[0], p.trimmed[1])},
	}
	if p.spec.Kind == dataset.Homogeneous {
		r[2].Warn = true
	}
	if p.outside > 0 {
		r = append(r, viz.Readout{Name: "outside", Label: "items outside the domain", Value: float64(p.outside),
			Text: format.Sprintf("%d — the sensitivities above do not cover them: raise R", p.outside), Warn: true})
	}
	return r
}

// Guarantee: the playground releases nothing, so it claims nothing.
func (p *Scene) Guarantee() privacy.Guarantee {
	return privacy.Guarantee{Eps: math.Inf(1), Mode: privacy.NonPrivate, Note: "exact statistics, no noise: this lesson shows sensitivity, not a private release"}
}

// Trace: the playground has no algorithm run to export.
func (p *Scene) Trace() *trace.Trace { return nil }

// Dataset returns a copy of the data as dragged.
func (p *Scene) Dataset() *dataset.Dataset { return p.data.Clone() }

// Describe says what the figure shows: the users and their means, the
// three summaries, and the two sensitivities.
func (p *Scene) Describe() string {
	return format.Sprintf("%d users of %d items each in the plane, every user's items in one colour around its mean (a ringed dot); the dashed circle is the domain of radius %.4g around the mean. ",
		p.spec.N, p.spec.M, p.radius) +
		viz.Recite(p.Readouts(), "mean", "median", "trimmed", "item-sens", "user-sens", "influence", "outside")
}

// ItemName names a user's mean or one of its items.
func (p *Scene) ItemName(id int) string {
	if u := id - p.userID(0); u >= 0 && u < p.data.N() {
		return format.Sprintf("user %d's mean at (%.3f, %.3f), which moves all its %d items", u+1, p.means[u][0], p.means[u][1], p.spec.M)
	}
	if i := id - p.itemID(0, 0); i >= 0 && i < p.spec.N*p.spec.M {
		it := p.data.Item(i/p.spec.M, i%p.spec.M)
		return format.Sprintf("user %d's item %d at (%.3f, %.3f)", i/p.spec.M+1, i%p.spec.M+1, it[0], it[1])
	}
	return ""
}
