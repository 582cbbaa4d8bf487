package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/floats"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/semisens"
	"github.com/uldplab/uldp/core/trace"
)

// The semi-sensitive mechanisms run, step and audit take by --mech: they
// work on examples with a sensitive feature, not on users' items, and so
// have flags of their own.
const mechMWUStep = "mwu-step"

// semiMech returns the --mech args name when it is a semi-sensitive one.
func semiMech(args []string) string {
	for i, a := range args {
		name, val, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "mech" {
			continue
		}
		if !eq && i+1 < len(args) {
			val = args[i+1]
		}
		if val == mechPVMW || val == mechMWUStep {
			return val
		}
	}
	return ""
}

// semiFlags are `uldp run --mech pvmw`'s flags.
type semiFlags struct {
	mech, data, mode, rule, mus string
	k, lmax, steps              int
	eps, delta, zeta            float64
	eta, c, tau, radius         float64
	paperLoop, noGuard, record  bool
	seed                        uint64
	input                       string
	set                         map[string]bool // the flags the command line set
}

func (s *semiFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&s.mech, "mech", "", "pvmw (train logistic regression through PVMW) or mwu-step (one multiplicative-weights step)")
	fs.StringVar(&s.input, "input", "", "mwu-step: the step's JSON (values, p, v, iota, eta, c, truth)")
	fs.StringVar(&s.data, "data", "", "pvmw: the data CSV (a1,…,a_d,label,sensitive; labels ±1, sensitive values 1…k)")
	fs.IntVar(&s.k, "k", 0, "pvmw: k, the number of values the sensitive feature takes (public, part of the mechanism)")
	fs.Float64Var(&s.eps, "eps", 0, "pvmw: the target ε > 0")
	fs.Float64Var(&s.delta, "delta", 0, "pvmw: the target δ in (0, 1)")
	fs.StringVar(&s.rule, "calibration", semisens.CalTight, "pvmw: tight (ρ* converts to exactly ε; Gaussian std σ/n) or paper (ρ = 0.1ε²/ln(1/δ); std 2σ/n)")
	fs.IntVar(&s.lmax, "lmax", semisens.DemoLMax, "pvmw: L_max, the updates paid for")
	fs.Float64Var(&s.zeta, "zeta", 0.5, "pvmw: ζ, the tests' and the norm's share of each update's budget")
	fs.Float64Var(&s.eta, "eta", semisens.DemoEta, "pvmw: η, the learning rate, ≤ 1/c")
	fs.Float64Var(&s.c, "c", semisens.DemoC, "pvmw: c, the truncation of the scores (the paper's is 3, with η ≤ 1/3)")
	fs.Float64Var(&s.tau, "tau", semisens.DemoTau, "pvmw: τ, the threshold on the error norm")
	fs.IntVar(&s.steps, "steps", semisens.DemoSteps, "pvmw: q, the gradient queries per problem")
	fs.Float64Var(&s.radius, "radius", semisens.DemoRadius, "pvmw: R, the domain B(0, R)")
	fs.StringVar(&s.mus, "mu", "0", "pvmw: regularisation strengths, one problem each, comma-separated: 0 is convex (projected gradient descent), > 0 strongly convex (the inexact-oracle method)")
	fs.BoolVar(&s.paperLoop, "paper-loop", false, "pvmw: the printed loop, which allows only L_max − 1 of the L_max updates paid for")
	fs.BoolVar(&s.noGuard, "no-guard", false, "pvmw: use the released error norm ι as it comes (by default it is floored at τ/2)")
	fs.StringVar(&s.mode, "mode", "teaching", "pvmw: teaching (these parameters, private), or non-private (no noise)")
	fs.BoolVar(&s.record, "trace", false, "pvmw: include the trace (every test, update and descent step)")
	fs.Uint64Var(&s.seed, "seed", 1, "pvmw: the seed of the noise streams")
}

// params checks the flags and returns the training parameters for n
// examples.
func (s *semiFlags) params(n int) (semisens.TrainParams, error) {
	mode, err := privacy.ParseMode(s.mode)
	if err != nil {
		return semisens.TrainParams{}, usageError{err}
	}
	if mode != privacy.Teaching && mode != privacy.NonPrivate {
		// PVMW's constants are chosen by hand (η, c, τ) and its guarantee
		// computed for them: it has no paper or sound calibration to run.
		return semisens.TrainParams{}, usagef("--mode %s: pvmw runs in teaching mode (these parameters, private) or non-private (no noise)", s.mode)
	}
	if s.set["zeta"] && !(s.zeta > 0 && s.zeta < 1) {
		return semisens.TrainParams{}, usagef("--zeta = %v: ζ, the tests' and the norm's share of each update's budget, must lie in (0, 1)", s.zeta)
	}
	rho, err := semisens.Rho(s.eps, s.delta, s.rule)
	if err != nil {
		return semisens.TrainParams{}, usageError{err}
	}
	var mus []float64
	for _, f := range strings.Split(s.mus, ",") {
		mu, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return semisens.TrainParams{}, usagef("--mu: %q is not a number", f)
		}
		mus = append(mus, mu)
	}
	p := semisens.TrainParams{PVMW: semisens.Params{Rho: rho, Delta: s.delta, LMax: s.lmax, Zeta: s.zeta, Calibration: s.rule,
		Eta: s.eta, C: s.c, Tau: s.tau, PaperLoop: s.paperLoop, NoGuard: s.noGuard, Mode: mode}, Steps: s.steps, Radius: s.radius, Mus: mus}
	if err := p.Validate(n); err != nil {
		return p, usageError{err}
	}
	return p, nil
}

// load reads the flags shared by run and step for pvmw: the data and
// the parameters, checked before the file is read where they can be.
func (s *semiFlags) load(fs *flag.FlagSet, set map[string]bool) (*semisens.Dataset, semisens.TrainParams, error) {
	s.set = set
	var missing []string
	for _, f := range []string{"data", "k", "eps", "delta"} {
		if !set[f] {
			missing = append(missing, "--"+f)
		}
	}
	if len(missing) > 0 {
		return nil, semisens.TrainParams{}, usagef("missing %s (see uldp %s --mech pvmw -h)", strings.Join(missing, ", "), fs.Name())
	}
	if _, err := s.params(1); err != nil {
		return nil, semisens.TrainParams{}, err
	}
	f, err := os.Open(s.data)
	if err != nil {
		return nil, semisens.TrainParams{}, usageError{err}
	}
	defer f.Close()
	ds, err := semisens.ReadCSV(f, s.k)
	if err != nil {
		return nil, semisens.TrainParams{}, usagef("%s: %v", s.data, err)
	}
	if err := (semisens.Logistic{}).Check(&ds.Public); err != nil {
		return nil, semisens.TrainParams{}, usagef("%s: %v", s.data, err)
	}
	p, err := s.params(ds.N())
	return ds, p, err
}

// semiOut is a pvmw run's report.
type semiOut struct {
	Mechanism string `json:"mechanism"`
	N         int    `json:"n"`
	K         int    `json:"k"`
	Dim       int    `json:"dim"`
	Seed      uint64 `json:"seed"`
	semisens.TrainResult
	Trace *trace.Trace `json:"trace,omitempty"`
}

func cmdRunSemi(e *env, args []string) error {
	fs := flags(e, "run", "run --mech pvmw --data FILE.csv --k K --eps E --delta D [--lmax L] [--eta η] [--c c] [--tau τ] [--steps q] [--radius R] [--mu μ,…] [--seed S] [--format text]\n       uldp run --mech mwu-step --input STEP.json [--format text]")
	var s semiFlags
	s.register(fs)
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	set := given(fs)
	if s.mech == mechMWUStep {
		for name := range set {
			if name != "mech" && name != "input" && name != "format" {
				return usagef("--%s is pvmw's; mwu-step reads everything from --input STEP.json", name)
			}
		}
		if !set["input"] {
			return usagef("missing --input STEP.json (values, p, v, iota, eta, c and optionally truth)")
		}
		return mwuStep(e, s.input, f)
	}
	if set["input"] {
		return usagef("--input is mwu-step's; pvmw reads --data FILE.csv")
	}
	ds, p, err := s.load(fs, set)
	if err != nil {
		return err
	}
	ctx, done, progress := withProgress(e, "training through PVMW")
	res, tr, err := semisens.Train(ctx, ds, p, rng.New(s.seed), progress)
	done()
	if err != nil {
		return mechErr(err)
	}
	out := semiOut{Mechanism: mechPVMW, N: ds.N(), K: ds.K, Dim: semisens.Logistic{}.Dim(&ds.Public), Seed: s.seed, TrainResult: res}
	if s.record {
		out.Trace = tr
	}
	return f.emit(e, out, func(w io.Writer) { semiText(w, out, p) })
}

func semiText(w io.Writer, out semiOut, p semisens.TrainParams) {
	c := out.Calibration
	fmt.Fprintf(w, "PVMW on %d examples, k = %d, d = %d (%s)\n", out.N, out.K, out.Dim, out.Guarantee)
	unmet(w, out.Guarantee)
	fmt.Fprintf(w, "ρ = %.4g over L_max = %d updates (%s): ε′ = %.4g, test noise Lap(%.3g), threshold noise Lap(%.3g), norm noise Lap(%.3g), Gaussian std %.3g\n",
		c.Rho, c.LMax, c.Rule, c.EpsPrime, c.BQuery, c.BThr, c.BNorm, c.SG)
	fmt.Fprintf(w, "η = %.3g, c = %.3g, τ = %.3g (τ/b_query = %.2f)\n", p.PVMW.Eta, p.PVMW.C, p.PVMW.Tau, p.PVMW.Tau/c.BQuery)
	state := "no FAIL"
	if out.Failed {
		state = "FAIL: every paid update spent"
	}
	fmt.Fprintf(w, "%d queries answered with %d updates, %s; largest answered error %.4g\n", out.Queries, out.Updates, state, out.MaxError)
	fmt.Fprintf(w, "Ψ %.4f → %.4f (ln k = %.4f; only a simulation knows Ψ)\n", out.Psi[0], out.Psi[len(out.Psi)-1], math.Log(float64(out.K)))
	fmt.Fprintln(w, "\nproblem\tμ\tmethod\texcess risk: PVMW\tnon-private\tGaussian GD\tRR then ERM")
	for i, pr := range out.Problems {
		fmt.Fprintf(w, "%d\t%g\t%s\t%.4g\t%.4g\t%.4g\t%.4g\n", i+1, pr.Mu, pr.Method, pr.Excess, pr.ExcessNonPrivate, pr.ExcessGaussian, pr.ExcessRR)
	}
	if out.Trace != nil {
		writeTrace(w, out.Trace)
	}
}

// stepIn is mwu-step's input.
type stepIn struct {
	Values [][][]float64 `json:"values"`
	P      [][]float64   `json:"p"`
	V      []float64     `json:"v"`
	Iota   *float64      `json:"iota"`
	Eta    float64       `json:"eta"`
	C      float64       `json:"c"`
	Truth  []int         `json:"truth"`
}

// stepOut is mwu-step's result.
type stepOut struct {
	P          [][]float64 `json:"p"`
	Answer     []float64   `json:"answer"`
	Phi        []float64   `json:"phi"`
	Clipped    int         `json:"clipped"`
	TrueAnswer []float64   `json:"true_answer,omitempty"`
	Error      *float64    `json:"error,omitempty"`
	PsiBefore  *float64    `json:"psi_before,omitempty"`
	PsiAfter   *float64    `json:"psi_after,omitempty"`
}

func mwuStep(e *env, path string, f format) error {
	raw, err := readLimited(path, semisens.MaxCSVBytes)
	if err != nil {
		return err
	}
	var in stepIn
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return usagef("%s: %v (fields: values, p, v, iota, eta, c, truth)", path, err)
	}
	if dec.More() {
		return usagef("%s: more after the step's object: give one", path)
	}
	switch {
	case len(in.Values) == 0 || len(in.Values[0]) < 2:
		return usagef("%s: values is missing: n × k × d, values[i][y] = f(x_i, y) for k ≥ 2 candidates", path)
	case in.V == nil:
		return usagef("%s: v is missing: the released noisy answer", path)
	case in.Iota == nil:
		return usagef("%s: iota is missing: the released noisy error norm", path)
	case !(*in.Iota > 0):
		return usagef("%s: iota = %v: the paper's MWU takes a noisy error norm ι > 0 (PVMW's guard raises a small or negative ι to max(η, τ/2) before its step)", path, *in.Iota)
	}
	n, k := len(in.Values), len(in.Values[0])
	tab := semisens.Table(in.Values)
	if err := tab.Check(n, k); err != nil {
		return usagef("%s: %v", path, err)
	}
	b := semisens.Uniform(n, k)
	if in.P != nil {
		if len(in.P) != n {
			return usagef("%s: p has %d rows for %d examples", path, len(in.P), n)
		}
		if b, err = semisens.FromProbs(in.P); err != nil {
			return usagef("%s: %v", path, err)
		}
		if b.K() != k {
			return usagef("%s: p has %d values per row, values %d candidates", path, b.K(), k)
		}
	}
	truth := make([]int, len(in.Truth))
	for i, y := range in.Truth {
		if y < 1 || y > k {
			return usagef("%s: truth[%d] = %d: sensitive values are 1…%d", path, i, y, k)
		}
		truth[i] = y - 1
	}
	if in.Truth != nil && len(truth) != n {
		return usagef("%s: truth has %d values for %d examples", path, len(truth), n)
	}
	pub := &semisens.Public{K: k, Features: make([][]float64, n)}
	var out stepOut
	var psi float64
	if in.Truth != nil {
		psi = semisens.Potential(b, truth)
	}
	st, err := semisens.MWU(pub, b, tab, in.V, *in.Iota, semisens.MWUParams{Eta: in.Eta, C: in.C})
	if err != nil {
		return usagef("%s: %v", path, err)
	}
	out.P, out.Phi, out.Clipped = b.Probs(), st.Phi, st.Clipped
	out.Answer = semisens.Answer(pub, b, tab, nil)
	if in.Truth != nil {
		d, err := semisens.New(k, pub.Features, nil, truth)
		if err != nil {
			return usagef("%s: %v", path, err)
		}
		out.TrueAnswer = d.TrueAnswer(tab, nil)
		e, after := floats.Distance(out.Answer, out.TrueAnswer, 2), semisens.Potential(b, truth)
		out.Error, out.PsiBefore, out.PsiAfter = &e, &psi, &after
	}
	return f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "MWU step on %d examples × %d values: φ = %s, %d of %d scores cut at ±c\n", n, k, vec(out.Phi), out.Clipped, n*k)
		fmt.Fprintf(w, "f(p) after = %s\n", vec(out.Answer))
		if out.Error != nil {
			fmt.Fprintf(w, "f(D) = %s, error %.6g; Ψ %.6g → %.6g\n", vec(out.TrueAnswer), *out.Error, *out.PsiBefore, *out.PsiAfter)
		}
		fmt.Fprintln(w, "\nexample\tbeliefs after")
		for i, row := range out.P {
			cells := make([]string, len(row))
			for y, x := range row {
				cells[y] = strconv.FormatFloat(x, 'g', 6, 64)
			}
			fmt.Fprintf(w, "%d\t%s\n", i+1, strings.Join(cells, "  "))
		}
	})
}

// readLimited reads a file of at most limit bytes.
func readLimited(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError{err}
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, usagef("%s is a directory: give a file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, usagef("reading %s: %v", path, err)
	}
	if int64(len(b)) > limit {
		return nil, usagef("%s is larger than %d MiB", path, limit>>20)
	}
	return b, nil
}

// stepSemi walks a pvmw run's trace.
func stepSemi(e *env, args []string) error {
	fs := flags(e, "step", "step --mech pvmw --data FILE.csv --k K --eps E --delta D [pvmw's flags] [--to K]")
	var s semiFlags
	s.register(fs)
	to := toFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if s.mech != mechPVMW {
		return usagef("--mech %s: step walks a pvmw run; an mwu-step is one step (uldp run --mech mwu-step)", s.mech)
	}
	ds, p, err := s.load(fs, given(fs))
	if err != nil {
		return err
	}
	ctx, done, progress := withProgress(e, "training through PVMW")
	run := func(ctx cancel.Context, _ *dataset.Dataset, st *rng.Streams) (*trace.Trace, error) {
		_, tr, err := semisens.Train(ctx, ds, p, st, progress)
		return tr, err
	}
	st, err := trace.NewStepperShared(ctx, run, nil, rng.New(s.seed))
	done()
	if err != nil {
		return mechErr(err)
	}
	return stepThrough(e, st, *to)
}
