package runner

import (
	"math"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/scenario"
	"github.com/uldplab/uldp/core/trace"
)

// oirFlags are the flags of Lowy, Liu & Asi's algorithms.
type oirFlags struct {
	groups                       int
	pExp, qExp                   float64
	radius, lip                  float64
	onEmpty, onShort, oversize   string
	withReplacement, abortOnHalt bool
}

func (f *oirFlags) register(fs FlagSet) {
	fs.IntVar(&f.groups, "groups", 0, "outlier-iterate-removal: C, the groups per phase (teaching or sound mode; default ⌈100 ln(20nme^ε/δ)/ε⌉)")
	fs.Float64Var(&f.pExp, "p-exp", 0, "outlier-iterate-removal: p, phase i steps with η/2^{p·i} (default 2.5); accelerated-outlier-removal: λ_i = λ·2^{p·i} (default Theorem C.3's 3q + 2.5 + log_n √m)")
	fs.Float64Var(&f.qExp, "q-exp", 0.5, "outlier-iterate-removal, accelerated-outlier-removal: q, phase i takes ⌊(1 − 2^{−q})·n/2^{q·i}⌋ users")
	fs.Float64Var(&f.radius, "radius", 0, "outlier-iterate-removal, accelerated-outlier-removal: R, the domain is the ℓ2 ball B(0, R)")
	fs.Float64Var(&f.lip, "lipschitz", 0, "outlier-iterate-removal, accelerated-outlier-removal: L, the bound on ‖∇f‖ that sets the radii τ (default 2μR for squared, h√d for huber)")
	fs.StringVar(&f.onEmpty, "on-empty", "", "when the coins keep nothing — outlier-iterate-removal: halt (output 0, the default) or start (release the phase's start plus noise); accelerated-outlier-removal: zero (the step's mean gradient is 0, the default) or halt (the phase returns 0)")
	fs.StringVar(&f.onShort, "on-short", "stop", "outlier-iterate-removal: when a phase's groups would be empty, stop (output the last point) or refuse")
	fs.StringVar(&f.oversize, "on-oversize", "cap", "accelerated-outlier-removal: when the printed K_i exceeds the phase's users, cap (K_i = n_i, flagged in the guarantee) or refuse")
	fs.BoolVar(&f.withReplacement, "with-replacement", false, "accelerated-outlier-removal: draw each minibatch with replacement, as printed (the default draws a subset; a repeated user breaks the score's sensitivity)")
	fs.BoolVar(&f.abortOnHalt, "abort-on-halt", false, "accelerated-outlier-removal: stop the whole run at a failed check instead of the printed \"return 0 and go on\"")
}

// emptyPolicy reads --on-empty; unset, the algorithm's own default.
func (f oirFlags) emptyPolicy() (optim.EmptyPolicy, error) {
	if f.onEmpty == "" {
		return optim.EmptyDefault, nil
	}
	e, err := optim.ParseEmptyPolicy(f.onEmpty)
	if err != nil {
		return e, format.Errorf("--on-empty: %v", err)
	}
	return e, nil
}

// parseOrder reads --order.
func parseOrder(s string) (optim.Order, error) {
	switch s {
	case "shuffled":
		return optim.Shuffled, nil
	case "given":
		return optim.Given, nil
	}
	return 0, format.Errorf("--order %q: use shuffled or given", s)
}

// ballLoss reads the loss of Lowy, Liu & Asi's algorithms on the ball
// B(0, R) in ℝ^dim, and the gradient bound L it implies (or --lipschitz).
func (c *Config) ballLoss(dim int) (loss.Smooth, float64, error) {
	var l loss.Smooth
	var lip float64
	switch c.Loss {
	case mech.LossSquared:
		if !(c.mu > 0) || math.IsInf(c.mu, 1) {
			return nil, 0, format.Errorf("--mu %v: the squared loss (μ/2)‖x − z‖² needs a finite μ > 0", c.mu)
		}
		l, lip = loss.Squared{Mu: c.mu}, 2*c.mu*c.oir.radius // items in the domain ball
	case "huber":
		if !(c.robust.huber > 0) || math.IsInf(c.robust.huber, 1) {
			return nil, 0, format.Errorf("--huber %v: the Huber loss needs a finite h > 0", c.robust.huber)
		}
		l, lip = loss.Huber{H: c.robust.huber}, c.robust.huber*math.Sqrt(float64(dim))
	default:
		return nil, 0, format.Errorf("--loss %q: %s takes squared or huber", c.Loss, c.Mech)
	}
	if c.Given["lipschitz"] {
		lip = c.oir.lip
	}
	return l, lip, nil
}

// DataLipschitz is L once the data's dimension is known: the Huber
// loss's h√d grows with it.
func (c *Config) DataLipschitz(l loss.Smooth, lip float64, dim int) float64 {
	if h, ok := l.(loss.Huber); ok && !c.Given["lipschitz"] {
		return h.H * math.Sqrt(float64(dim))
	}
	return lip
}

// startDim is the dimension to check flags against before the data is
// read: x₀'s, or 2.
func startDim(theta0 []float64) int {
	if theta0 != nil {
		return len(theta0)
	}
	return 2
}

// llaFlags are what both of Lowy, Liu & Asi's algorithms read alike.
type llaFlags struct {
	mode     privacy.Mode
	tauScale float64 // 0: not given
	onEmpty  optim.EmptyPolicy
	order    optim.Order
	theta0   []float64
	loss     loss.Smooth
	lip      float64
	dim      int // x₀'s, or 2 until the data says
}

// readLLA reads them; tauIs says what --tau scales, for its error.
func (c *Config) readLLA(tauIs string) (llaFlags, error) {
	var lf llaFlags
	var err error
	if lf.mode, err = privacy.ParseMode(c.Mode); err != nil {
		return lf, err
	}
	if c.Given["tau"] {
		if !(c.Tau > 0) {
			return lf, format.Errorf("--tau %v: %s must be a number > 0", c.Tau, tauIs)
		}
		lf.tauScale = c.Tau
	}
	if lf.onEmpty, err = c.oir.emptyPolicy(); err != nil {
		return lf, err
	}
	if lf.order, err = parseOrder(c.robust.order); err != nil {
		return lf, err
	}
	if lf.theta0, err = parseTheta0(c.theta0); err != nil {
		return lf, err
	}
	lf.dim = startDim(lf.theta0)
	lf.loss, lf.lip, err = c.ballLoss(lf.dim)
	return lf, err
}

// oirParams reads the flags; the data's size is checked when the run
// starts.
func (c *Config) oirParams() (optim.OIRParams, error) {
	f := c.oir
	lf, err := c.readLLA("the scale of τ_i (the paper's is 1000)")
	if err != nil {
		return optim.OIRParams{}, err
	}
	p := optim.OIRParams{Eps: c.Eps, Delta: c.Delta, Loss: lf.loss, Lipschitz: lf.lip, Radius: f.radius, Eta: c.eta, PExp: f.pExp, QExp: f.qExp,
		Groups: f.groups, Phases: c.phases, TauScale: lf.tauScale, Theta0: lf.theta0, Order: lf.order, Mode: lf.mode, OnEmpty: lf.onEmpty, Record: c.Record}
	if !c.Given["p-exp"] {
		p.PExp = 2.5
	}
	if p.OnShort, err = optim.ParseShortPolicy(f.onShort); err != nil {
		return p, format.Errorf("--on-short: %v", err)
	}
	// Check everything the data does not decide now, before a file is reac.
	if err := p.Validate(max(2, f.groups), lf.dim); err != nil {
		return p, err
	}
	return p, nil
}

// OIRPhase is a phase as the contract prints it, users by id and
// groups by number (1-based).
type OIRPhase struct {
	Users       []string    `json:"users"`
	Groups      [][]string  `json:"groups"`
	Unused      []string    `json:"unused,omitempty"`
	Eta         float64     `json:"eta"`
	Tau         float64     `json:"tau"`
	Steps       int         `json:"steps"`
	EndIterates [][]float64 `json:"end_iterates"`
	Score       float64     `json:"score"`
	NoisyScore  float64     `json:"noisy_score"`
	Gate        float64     `json:"gate"`
	PPass       float64     `json:"p_pass"`
	Passed      bool        `json:"passed"`
	Counts      []int       `json:"counts"`
	KeepProb    []float64   `json:"keep_prob"`
	Kept        []int       `json:"kept"`
	Mean        []float64   `json:"mean"`
	Sigma       float64     `json:"sigma"`
	Needed      float64     `json:"needed_sigma"`
	Output      []float64   `json:"output"`
}

type OIRReport struct {
	Mechanism string     `json:"mechanism"`
	C         int        `json:"C"`
	Phases    []OIRPhase `json:"phases"`
	Halted    bool       `json:"halted"`
	Ending
}

func (*OIRReport) report() {}

// Ending is how both of Lowy, Liu & Asi's runs end: where they stopped
// and why, the output, the gradients spent against nm, the claim.
type Ending struct {
	Stop      string            `json:"stop,omitempty"`
	Output    []float64         `json:"output"`
	Gradients int64             `json:"gradient_evaluations"`
	NM        int64             `json:"nm"`
	Guarantee privacy.Guarantee `json:"guarantee"`
	Seed      uint64            `json:"seed"`
	Trace     *trace.Trace      `json:"trace,omitempty"`
}

func newEnding(stop string, output []float64, grads int64, g privacy.Guarantee, ds *dataset.Dataset, m int, s *rng.Streams, tr *trace.Trace) Ending {
	return Ending{Stop: stop, Output: output, Gradients: grads, NM: int64(ds.N()) * int64(m), Guarantee: g, Seed: s.Seed(), Trace: tr}
}

// ids names users by their ids.
func ids(ds *dataset.Dataset, idx []int) []string {
	out := make([]string, len(idx))
	for i, u := range idx {
		out[i] = ds.Users[u].ID
	}
	return out
}

func newOIRReport(res optim.OIRResult, ds *dataset.Dataset, m int, s *rng.Streams, tr *trace.Trace) *OIRReport {
	out := &OIRReport{Mechanism: scenario.MechOIR, C: res.Groups, Halted: res.Halted,
		Ending: newEnding(res.Stop, res.Output, res.Gradients, res.Guarantee, ds, m, s, tr)}
	for _, ph := range res.Phases {
		o := OIRPhase{Users: ids(ds, ph.UserIdx), Eta: ph.Eta, Tau: ph.Tau, Steps: ph.Steps, Score: ph.Score, NoisyScore: ph.Score + ph.ScoreNoise,
			Gate: ph.Gate, PPass: ph.PPass, Passed: ph.Passed, Counts: ph.Counts, KeepProb: ph.Keep, Kept: []int{}, Mean: ph.Mean,
			Sigma: ph.Sigma, Needed: ph.Needed, Output: ph.Output}
		if len(ph.Unused) > 0 {
			o.Unused = ids(ds, ph.Unused)
		}
		for j, g := range ph.Groups {
			o.Groups = append(o.Groups, ids(ds, g))
			o.EndIterates = append(o.EndIterates, ph.Ends.At(j))
		}
		for _, j := range ph.Kept {
			o.Kept = append(o.Kept, j+1)
		}
		out.Phases = append(out.Phases, o)
	}
	return out
}

func (c *Config) oirJob() (Job, error) {
	p, err := c.oirParams()
	if err != nil {
		return Job{}, err
	}
	return Job{"running outlier-iterate removal", func(ctx cancel.Context, ds *dataset.Dataset, s *rng.Streams, progress mech.Progress) (Report, *trace.Trace, error) {
		p.Lipschitz = c.DataLipschitz(p.Loss, p.Lipschitz, ds.Dim)
		res, tr, err := optim.OutlierIterateRemoval(ctx, p, ds, s, progress)
		if err != nil {
			return nil, nil, err
		}
		m, _ := ds.M()
		return newOIRReport(res, ds, m, s, tr), tr, nil
	}}, nil
}
