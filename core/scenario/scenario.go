// Package scenario reads and writes ULDP Lab's scenario files: one JSON
// document holding a dataset (inline, or a generator spec), a mechanism, its
// parameters, a mode and a seed — everything needed to replay a run exactly.
//
// Decoding is strict: unknown fields, wrong types, out-of-range values and
// missing requirements are errors that name the field (as a path such as
// params.eps) and say how to fix it.
//
//	{
//	  "version": 1,
//	  "name": "Three outliers",
//	  "generator": {"kind": "outliers", "n": 14, "m": 1, "d": 1, "outliers": 3},
//	  "mechanism": "deloutputpert",
//	  "params": {"eps": 8, "delta": 0.1, "sens": 0.1},
//	  "mode": "teaching",
//	  "seed": 42
//	}
package scenario

import (
	"encoding/json"
	"errors"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/internal/strictjson"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// Version is the scenario format version this package reads and writes.
const Version = 1

// MaxBytes caps a scenario file (a dataset at dataset.MaxValues written out
// fits well inside it).
const MaxBytes = 256 << 20

// Scenario is one replayable run.
type Scenario struct {
	Version     int    `json:"version"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	// Exactly one of Data and Generator is set.
	Data      *dataset.Dataset `json:"dataset,omitempty"`
	Generator *dataset.Spec    `json:"generator,omitempty"`
	Mechanism string           `json:"mechanism"`
	Params    Params           `json:"params"`
	Mode      privacy.Mode     `json:"mode"`
	Seed      uint64           `json:"seed"`
}

// Params are the mechanism parameters a scenario may set. A zero value means
// "not given"; which ones a mechanism needs, Requires says.
type Params struct {
	Eps   float64 `json:"eps"`
	Delta float64 `json:"delta,omitempty"`
	// Sens is the sensitivity Δ (target deletion sensitivity for DelOutputPert).
	Sens float64 `json:"sens,omitempty"`
	// Tau is the concentration radius τ of ORME and DP-SGD.
	Tau float64 `json:"tau,omitempty"`
	// Kappa overrides κ in teaching mode.
	Kappa int `json:"kappa,omitempty"`
	// Queries is the number of AboveThreshold queries (T of Paper B).
	Queries int `json:"queries,omitempty"`
	// Steps overrides an optimiser's iteration count for demos.
	Steps int `json:"steps,omitempty"`
	// F names the released function, e.g. "mean".
	F string `json:"f,omitempty"`
	// Rule and DeltaSlack choose the ledger's composition rule.
	Rule       privacy.Rule `json:"rule,omitempty"`
	DeltaSlack float64      `json:"delta_slack,omitempty"`
	// Beta is the failure probability of SCOutputPert's Δ and the phased
	// algorithms (Paper A); 0 means the default 0.01.
	Beta float64 `json:"beta,omitempty"`
	// Mu, RK and RX set the squared loss (Mu/2)‖θ − x‖² on 𝒦 = B(0, RK)
	// with data in B(0, RX); Mu 0 means 1.
	Mu float64 `json:"mu,omitempty"`
	RK float64 `json:"rk,omitempty"`
	RX float64 `json:"rx,omitempty"`
	// SensRule is SCOutputPert's Δ rule: "paper" (default) or "corollary".
	SensRule string `json:"sens_rule,omitempty"`
	// Lambda overrides the phased algorithms' λ; Phases their phase count.
	Lambda float64 `json:"lambda,omitempty"`
	Phases int     `json:"phases,omitempty"`
	// Loss is the optimisers' loss: "squared" (default), "absolute" (1-D)
	// or, for DP-SGD, "distance".
	Loss string `json:"loss,omitempty"`
	// Eta and Smoothing set DP-SGD's step size and smoothing radius (0:
	// Theorem 4.1's; no smoothing at all needs the CLI's --smoothing 0).
	Eta       float64 `json:"eta,omitempty"`
	Smoothing float64 `json:"smoothing,omitempty"`
	// Robust SGD's (Ghazi et al. 2025): B users per step, the kernel radius
	// and clip band r, the box [−D, D]^d, the statistic ("median" or
	// "trimmed", Trim users dropped at each end: 0 means ⌈B/3⌉), the batch
	// order ("shuffled" or "given"), the test's threshold v (absent: the
	// paper's), the Huber loss's h (0 means 1) and the start x₀ (absent:
	// the centre).
	Batch     int       `json:"batch,omitempty"`
	R         float64   `json:"r,omitempty"`
	Domain    float64   `json:"domain,omitempty"`
	Stat      string    `json:"stat,omitempty"`
	Trim      int       `json:"trim,omitempty"`
	Order     string    `json:"order,omitempty"`
	Threshold *float64  `json:"threshold,omitempty"`
	Huber     float64   `json:"huber,omitempty"`
	Theta0    []float64 `json:"theta0,omitempty"`
	// Outlier-iterate removal's (Lowy, Liu & Asi 2024): the groups C (0:
	// the paper's), the step and phase exponents p and q (0: 2.5 and 0.5),
	// the domain ball's radius R, the gradient bound L (0: from the loss),
	// and the policies for an empty selection ("halt" or "start") and a
	// phase too short for its groups ("stop" or "refuse"). Tau scales τ_i
	// (0: the paper's 1000).
	Groups    int     `json:"groups,omitempty"`
	PExp      float64 `json:"p_exp,omitempty"`
	QExp      float64 `json:"q_exp,omitempty"`
	Radius    float64 `json:"radius,omitempty"`
	Lipschitz float64 `json:"lipschitz,omitempty"`
	OnEmpty   string  `json:"on_empty,omitempty"`
	OnShort   string  `json:"on_short,omitempty"`
	// The accelerated variant's (same paper, Algorithms 2–3), besides
	// Radius, Lipschitz, PExp, QExp, Lambda, Batch (K_i), Smoothing (r),
	// Phases and Tau (c_τ): minibatches drawn with replacement as printed,
	// what a printed K_i above the phase's users does ("cap" or "refuse"),
	// and whether a failed check stops the whole run.
	WithReplacement bool   `json:"with_replacement,omitempty"`
	OnOversize      string `json:"on_oversize,omitempty"`
	AbortOnHalt     bool   `json:"abort_on_halt,omitempty"`
}

// requirements lists the mechanism names a scenario may use, with the
// parameters each requires. Algorithms are added here as they are built.
var requirements = map[string][]string{
	privacy.MechLaplace:          {"eps", "sens"},
	privacy.MechGaussian:         {"eps", "delta", "sens"},
	privacy.MechAnalyticGaussian: {"eps", "delta", "sens"},
	privacy.MechDelOutputPert:    {"eps", "delta", "sens"},
	"abovethreshold":             {"eps"},
	MechORME:                     {"eps", "delta", "tau"},
	MechSCOutputPert:             {"eps", "delta", "rk", "rx"},
	MechPhasedERM:                {"eps", "delta", "rk", "rx"},
	MechPhasedSCO:                {"eps", "delta", "rk", "rx"},
	MechStronglyConvexERM:        {"eps", "delta", "rk", "rx"},
	MechStronglyConvexSCO:        {"eps", "delta", "rk", "rx"},
	MechDPSGD:                    {"eps", "delta", "rk"},
	MechDPSGDSC:                  {"eps", "delta", "rk", "rx"},
	MechRobustSGD:                {"eps", "delta", "batch", "r", "eta", "domain"},
	MechRobustLoc:                {"eps", "delta", "batch", "r", "eta", "domain"},
	MechOIR:                      {"eps", "delta", "eta", "radius"},
	MechAccel:                    {"eps", "delta", "radius"},
}

// The optimisers of Paper A a scenario may name (squared loss on a ball).
const (
	MechSCOutputPert      = "scoutputpert"
	MechPhasedERM         = "phased-erm"
	MechPhasedSCO         = "phased-sco"
	MechStronglyConvexERM = "strongly-convex-erm"
	MechStronglyConvexSCO = "strongly-convex-sco"
	// MechORME is Paper B's outlier-removal mean estimation.
	MechORME = "orme"
	// MechDPSGD is Paper B's user-level DP-SGD.
	MechDPSGD = "dp-sgd"
	// MechDPSGDSC is its strongly convex localisation (Alg. 4).
	MechDPSGDSC = "dp-sgd-sc"
	// MechRobustSGD is Ghazi et al. 2025's robust-statistics SGD, one
	// phase; MechRobustLoc its localisation.
	MechRobustSGD = "robust-sgd"
	MechRobustLoc = "robust-sgd-loc"
	// MechOIR is Lowy, Liu & Asi 2024's phased SGD with outlier-iterate
	// removal (their Algorithm 1).
	MechOIR = "outlier-iterate-removal"
	// MechAccel is the same paper's accelerated phased ERM with
	// outlier-gradient removal (their Algorithms 2–3).
	MechAccel = "accelerated-outlier-removal"
)

var (
	topFields   = []string{"version", "name", "description", "dataset", "generator", "mechanism", "params", "mode", "seed"}
	paramFields = []string{"eps", "delta", "sens", "tau", "kappa", "queries", "steps", "f", "rule", "delta_slack", "beta", "mu", "rk", "rx", "sens_rule", "lambda", "phases", "loss", "eta", "smoothing",
		"batch", "r", "domain", "stat", "trim", "order", "threshold", "huber", "theta0",
		"groups", "p_exp", "q_exp", "radius", "lipschitz", "on_empty", "on_short", "with_replacement", "on_oversize", "abort_on_halt"}
	genFields = []string{"kind", "n", "m", "d", "spread", "center", "clusters", "separation", "df", "outliers"}
)

// MechanismNames returns the mechanisms a scenario may name, sorted.
func MechanismNames() []string {
	return slices.Sorted(maps.Keys(requirements))
}

// Requires returns the parameters mech needs, and whether mech is known.
func Requires(mech string) ([]string, bool) {
	need, ok := requirements[mech]
	return append([]string(nil), need...), ok
}

// Decode reads and validates one scenario.
func Decode(r io.Reader) (*Scenario, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxBytes+1))
	if err != nil {
		return nil, format.Errorf("reading scenario: %v", err)
	}
	if len(b) > MaxBytes {
		return nil, format.Errorf("scenario is larger than %d MiB: keep large datasets in a CSV file", MaxBytes>>20)
	}
	return decode(b)
}

func decode(b []byte) (*Scenario, error) {
	if err := strictjson.Document(b, "scenario"); err != nil {
		return nil, err
	}
	top, err := strictjson.Object(b, "scenario", topFields)
	if err != nil {
		return nil, err
	}
	s := &Scenario{}
	if err := strictjson.Field(top, "version", "version", &s.Version, true); err != nil {
		return nil, err
	}
	if s.Version != Version {
		return nil, format.Errorf("version = %d: this ULDP Lab reads scenario version %d; set \"version\": %d", s.Version, Version, Version)
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"name", &s.Name}, {"description", &s.Description}, {"mechanism", &s.Mechanism}} {
		if err := strictjson.Field(top, f.name, f.name, f.dst, f.name == "mechanism"); err != nil {
			return nil, err
		}
	}
	need, ok := Requires(s.Mechanism)
	if !ok {
		return nil, format.Errorf("mechanism = %q: use one of %s", s.Mechanism, strings.Join(MechanismNames(), ", "))
	}
	if err := decodeData(top, s); err != nil {
		return nil, err
	}
	if err := decodeParams(top, s, need); err != nil {
		return nil, err
	}
	mode := "paper"
	if err := strictjson.Field(top, "mode", "mode", &mode, false); err != nil {
		return nil, err
	}
	if s.Mode, err = privacy.ParseMode(mode); err != nil {
		return nil, err
	}
	if err := strictjson.Field(top, "seed", "seed", &s.Seed, false); err != nil {
		return nil, err
	}
	return s, nil
}

func decodeData(top map[string]json.RawMessage, s *Scenario) error {
	_, hasData := top["dataset"]
	_, hasGen := top["generator"]
	switch {
	case hasData && hasGen:
		return errors.New("both dataset and generator are given: keep one (inline data, or a generator spec to draw it from the seed)")
	case !hasData && !hasGen:
		return errors.New("no data: add \"dataset\" (inline users) or \"generator\" (e.g. {\"kind\": \"gaussian\", \"n\": 20, \"m\": 5, \"d\": 2})")
	case hasData:
		s.Data = &dataset.Dataset{}
		if err := json.Unmarshal(top["dataset"], s.Data); err != nil {
			return strictjson.TypeError("dataset", err)
		}
		if err := s.Data.Validate(false); err != nil {
			return format.Errorf("dataset: %v", err)
		}
	default:
		g, err := strictjson.Object(top["generator"], "generator", genFields)
		if err != nil {
			return err
		}
		s.Generator = &dataset.Spec{}
		if err := strictjson.Decode(top["generator"], s.Generator); err != nil {
			return strictjson.TypeError("generator", err)
		}
		if _, ok := g["kind"]; !ok {
			return format.Errorf("generator.kind is missing: use one of %s", strings.Join(dataset.Kinds, ", "))
		}
		if err := s.Generator.Validate(); err != nil {
			return format.Errorf("generator: %v", err)
		}
	}
	return nil
}

func between(v, lo, hi float64, what string) error {
	if !(v > lo && v < hi) {
		return format.Errorf("%s must be in (%g, %.4g), got %v", what, lo, hi, v)
	}
	return nil
}

func oneOf(v, what string, choices ...string) error {
	if !slices.Contains(choices, v) {
		return format.Errorf("%s %q: use %s", what, v, strings.Join(choices, " or "))
	}
	return nil
}

func decodeParams(top map[string]json.RawMessage, s *Scenario, need []string) error {
	raw, ok := top["params"]
	if !ok {
		return format.Errorf("params is missing: %s needs %s", s.Mechanism, strings.Join(need, ", "))
	}
	p, err := strictjson.Object(raw, "params", paramFields)
	if err != nil {
		return err
	}
	if err := strictjson.Decode(raw, &s.Params); err != nil {
		return strictjson.TypeError("params", err)
	}
	for _, n := range need {
		if _, ok := p[n]; !ok {
			return format.Errorf("params.%s is missing: %s needs %s", n, s.Mechanism, strings.Join(need, ", "))
		}
	}
	q := s.Params
	check := func(name string, err error) error {
		if _, given := p[name]; given && err != nil {
			return format.Errorf("params.%s: %v", name, err)
		}
		return nil
	}
	positive := func(v float64, what string) error {
		if !(v > 0) || math.IsInf(v, 1) {
			return format.Errorf("%s must be a finite number > 0, got %v", what, v)
		}
		return nil
	}
	atLeast1 := func(v int, what string) error {
		if v < 1 {
			return format.Errorf("%s must be ≥ 1, got %d", what, v)
		}
		return nil
	}
	var thresholdErr, theta0Err error
	if q.Threshold != nil && (math.IsNaN(*q.Threshold) || math.IsInf(*q.Threshold, 0)) {
		thresholdErr = format.Errorf("the threshold v must be a finite number, got %v", *q.Threshold)
	}
	if _, given := p["theta0"]; given && len(q.Theta0) == 0 {
		theta0Err = errors.New("x₀ needs one number per coordinate, got none")
	}
	var ruleErr error
	if _, given := p["rule"]; given {
		_, ruleErr = privacy.ParseRule(string(q.Rule))
	}
	return errors.Join(
		check("eps", privacy.CheckEps(q.Eps)),
		check("delta", privacy.CheckDelta(q.Delta)),
		check("sens", positive(q.Sens, "the sensitivity Δ")),
		check("tau", positive(q.Tau, "the radius τ")),
		check("kappa", atLeast1(q.Kappa, "κ")),
		check("queries", atLeast1(q.Queries, "the number of queries")),
		check("steps", atLeast1(q.Steps, "the number of steps")),
		check("rule", ruleErr),
		check("delta_slack", privacy.CheckDelta(q.DeltaSlack)),
		check("beta", between(q.Beta, 0, 1/math.E, "the failure probability β")),
		check("mu", positive(q.Mu, "the strong convexity μ")),
		check("rk", positive(q.RK, "the domain radius R_K")),
		check("rx", positive(q.RX, "the data radius R_X")),
		check("sens_rule", oneOf(q.SensRule, "the Δ rule", "paper", "corollary")),
		check("lambda", positive(q.Lambda, "λ")),
		check("phases", atLeast1(q.Phases, "the number of phases")),
		check("loss", oneOf(q.Loss, "the loss", "squared", "absolute", "distance", "huber", "coupled")),
		check("eta", positive(q.Eta, "the step size η")),
		check("smoothing", positive(q.Smoothing, "the smoothing radius r")),
		check("batch", atLeast1(q.Batch, "B, the users per step,")),
		check("r", positive(q.R, "the radius r")),
		check("domain", positive(q.Domain, "D, the box's half-width,")),
		check("stat", oneOf(q.Stat, "the robust statistic", "median", "trimmed")),
		check("trim", atLeast1(q.Trim, "k, the users trimmed at each end,")),
		check("order", oneOf(q.Order, "the batch order", "shuffled", "given")),
		check("threshold", thresholdErr),
		check("huber", positive(q.Huber, "the Huber loss's h")),
		check("theta0", theta0Err),
		check("on_empty", oneOf(q.OnEmpty, "the empty-selection policy", "halt", "start", "zero")),
		check("on_short", oneOf(q.OnShort, "the short-phase policy", "stop", "refuse")),
		check("on_oversize", oneOf(q.OnOversize, "the oversize policy", "cap", "refuse")),
	)
}

// Build returns the scenario's dataset: a copy of the inline data, or the
// generator's output drawn from the scenario's seed.
func (s *Scenario) Build() (*dataset.Dataset, error) {
	if s.Data != nil {
		return s.Data.Clone(), nil
	}
	if s.Generator == nil {
		return nil, errors.New("scenario has neither dataset nor generator")
	}
	return dataset.Generate(*s.Generator, rng.New(s.Seed))
}

// Encode writes the scenario as indented JSON that Decode reads back.
func Encode(w io.Writer, s *Scenario) error {
	out := *s
	out.Version = Version
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(&out)
}
