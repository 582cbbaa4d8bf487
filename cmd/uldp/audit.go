package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/scenario"
)

type lawOut struct {
	RStar   *int      `json:"rstar"`
	PBottom float64   `json:"p_bottom"`
	Center  []float64 `json:"center"`
}

type auditOut struct {
	Mechanism string            `json:"mechanism"`
	Claimed   privacy.Guarantee `json:"claimed"`
	Changed   *string           `json:"changed_user"` // null when the datasets are equal
	Sigma     float64           `json:"sigma"`
	A         lawOut            `json:"a"`
	B         lawOut            `json:"b"`
	Mutant    *audit.DelMutant  `json:"mutant,omitempty"`
	// MonteCarlo is the sampling audit of the same pair, when asked for.
	MonteCarlo *audit.MCResult `json:"monte_carlo,omitempty"`
	Points     []audit.Point   `json:"points"`
	// Verdict is "pass" or "violation"; for a mutant, a violation means the
	// audit caught it.
	Verdict string `json:"verdict"`
}

// auditRequest is what every mechanism's audit shares: the pair, the ε
// values to evaluate δ(ε) at, the variant and the Monte Carlo settings.
type auditRequest struct {
	a, b    *dataset.Dataset
	changed int
	eps     []float64
	mutant  string
	mc      bool
	cfg     audit.MCConfig
	f       format
}

// changedID is the changed user's id, or nil for equal datasets.
func (r auditRequest) changedID() *string {
	if r.changed < 0 {
		return nil
	}
	id := r.a.Users[r.changed].ID
	return &id
}

func cmdAudit(e *env, args []string) error {
	if semiMech(args) == mechPVMW {
		return auditSemi(e, args)
	}
	fs := flags(e, "audit", "audit (--scenario FILE.json | --mech deloutputpert|orme|dp-sgd|robust-sgd|outlier-iterate-removal|accelerated-outlier-removal --data A.csv PARAMETERS) --neighbour (B.csv | replace:ID=ITEMS) [--at-eps e1,e2,…] [--mutant NAME] [--monte-carlo] [--format text]")
	var d runner.Config
	d.Register(fs)
	dataA := fs.String("data", "", "dataset A (CSV)")
	scen := fs.String("scenario", "", "scenario JSON holding dataset A and the parameters, instead of --data and the parameter flags")
	dataB := fs.String("neighbour", "", `dataset B: a CSV, or A with one user's items replaced, as "replace:ID=x1,…,xd;x1,…,xd"`)
	at := fs.String("at-eps", "", "ε values at which to evaluate δ(ε) (default: the claimed ε)")
	mutant := fs.String("mutant", "", "audit a deliberately broken variant instead: deloutputpert "+strings.Join(audit.DelMutantNames(), ", ")+"; orme and dp-sgd "+strings.Join(audit.ORMEMutantNames(), ", ")+"; robust-sgd "+strings.Join(audit.RSGDMutantNames(), ", ")+"; outlier-iterate-removal "+strings.Join(optim.OIRMutantNames(), ", "))
	mc := fs.Bool("monte-carlo", false, "also audit by sampling (dp-sgd: only by sampling): runs per side, Clopper–Pearson bounds, an ε lower bound")
	runs := fs.Int("runs", 100_000, "Monte Carlo runs per side")
	alpha := fs.Float64("alpha", 1e-3, "Monte Carlo: probability of flagging a correct mechanism")
	seed := fs.Uint64("seed", 1, "Monte Carlo: seed of the sampling streams; robust-sgd, outlier-iterate-removal: also the run's partition")
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "neighbour"); err != nil {
		return err
	}
	a, err := loadInput(fs, &d, *dataA, *scen, seed, nil)
	if err != nil {
		return err
	}
	b, err := neighbourOf(a, *dataB, d.Limits)
	if err != nil {
		return err
	}
	if m, err := privacy.ParseMode(d.Mode); err == nil && m == privacy.NonPrivate {
		return usagef("--mode non-private claims no guarantee: there is nothing to audit")
	}
	r := auditRequest{a: a, b: b, eps: []float64{d.Eps}, mutant: *mutant, mc: *mc,
		cfg: audit.MCConfig{Runs: *runs, Alpha: *alpha, Seed: *seed}, f: f}
	if *at != "" {
		r.eps = r.eps[:0]
		for _, s := range strings.Split(*at, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !(v >= 0) || v > 700 {
				return usagef("--at-eps: %q is not an ε in [0, 700]", s)
			}
			r.eps = append(r.eps, v)
		}
	}
	if r.changed, err = audit.CheckNeighbours(a, b); err != nil {
		return usageError{err}
	}
	switch d.Mech {
	case scenario.MechORME:
		return auditORME(e, &d, r)
	case privacy.MechDelOutputPert:
		return auditDel(e, &d, r)
	case scenario.MechDPSGD:
		return auditDPSGD(e, &d, r)
	case scenario.MechRobustSGD, scenario.MechRobustLoc:
		return auditRobust(e, &d, r, *seed)
	case scenario.MechOIR:
		return auditOIR(e, &d, r, *seed)
	case scenario.MechAccel:
		return auditAccel(e, &d, r)
	}
	return usagef("--mech %q: audit supports %s, %s, %s (by sampling), %s, %s and %s (by sampling)", d.Mech, privacy.MechDelOutputPert, scenario.MechORME, scenario.MechDPSGD,
		scenario.MechRobustSGD, scenario.MechOIR, scenario.MechAccel)
}

func auditDel(e *env, d *runner.Config, r auditRequest) error {
	p, err := d.DelParams()
	if err != nil {
		return usageError{err}
	}
	var mut *audit.DelMutant
	if r.mutant != "" {
		m, err := audit.DelMutantByName(r.mutant)
		if err != nil {
			return usageError{err}
		}
		mut = &m
	}
	ctx, done, progress := withProgress(e, "computing both output laws")
	defer done()
	la, err := mech.DelOutputPertLaw(ctx, p, r.a, progress)
	if err != nil {
		return mechErr(err)
	}
	lb, err := mech.DelOutputPertLaw(ctx, p, r.b, progress)
	if err != nil {
		return mechErr(err)
	}
	if mut != nil {
		la, lb = mut.Apply(la), mut.Apply(lb)
	}
	g := privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode}
	out := auditOut{Mechanism: privacy.MechDelOutputPert, Claimed: g, Sigma: la.Sigma, Changed: r.changedID(),
		A: lawJSON(la), B: lawJSON(lb), Mutant: mut, Points: audit.Curve(la, lb, g, r.eps)}
	if r.mc {
		if out.MonteCarlo, err = r.sample(e, "sampling both sides", audit.LawSampler(la, p.Eps/2, r.a.Dim), audit.LawSampler(lb, p.Eps/2, r.a.Dim), g); err != nil {
			return err
		}
	}
	out.Verdict = verdict(out.Points, out.MonteCarlo)
	return r.f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "DelOutputPert, claimed (ε = %g, δ = %g)-DP; σ = %.6g\n", p.Eps, p.Delta, la.Sigma)
		if mut != nil {
			fmt.Fprintf(w, "MUTANT %s: %s\n", mut.Name, mut.Broken)
		}
		for _, side := range []struct {
			name string
			l    lawOut
		}{{"A", out.A}, {"B", out.B}} {
			name, l := side.name, side.l
			if l.RStar == nil {
				fmt.Fprintf(w, "%s: ⊥ with probability 1\n", name)
			} else {
				fmt.Fprintf(w, "%s: r* = %d, Pr[⊥] = %.6g, centre %s\n", name, *l.RStar, l.PBottom, vec(l.Center))
			}
		}
		auditText(w, out.Points, out.MonteCarlo, mut != nil, out.Verdict)
	})
}

// sample runs the Monte Carlo audit of a against b, with a progress bar.
func (r auditRequest) sample(e *env, what string, a, b audit.Sampler, g privacy.Guarantee) (*audit.MCResult, error) {
	ctx, done, progress := withProgress(e, what)
	defer done()
	res, err := audit.MonteCarlo(ctx, a, b, g, r.cfg, progress)
	if err != nil {
		return nil, mechErr(err)
	}
	return &res, nil
}

// verdict is "violation" if the exact profile or the sampling audit shows
// one, else "pass".
// knownMutant refuses a --mutant that is not among the mechanism's broken
// variants, names; the message lists them after listing.
func (r auditRequest) knownMutant(listing string, names []string) error {
	if r.mutant != "" && !slices.Contains(names, r.mutant) {
		return usagef("--mutant %q: %s %s", r.mutant, listing, strings.Join(names, ", "))
	}
	return nil
}

// claimText writes the claim's unmet conditions and, under a broken
// variant, its name with what qualifies it.
func claimText(w io.Writer, g privacy.Guarantee, mutant, qualifier string) {
	for _, u := range g.Unmet() {
		fmt.Fprintf(w, "  unmet: %s\n", u)
	}
	if mutant != "" {
		fmt.Fprintf(w, "MUTANT %s%s\n", mutant, qualifier)
	}
}

func verdict(points []audit.Point, mc *audit.MCResult) string {
	for _, pt := range points {
		if pt.Verdict == audit.Violation {
			return "violation"
		}
	}
	if mc != nil && mc.Verdict == "violation" {
		return "violation"
	}
	return "pass"
}

// auditText writes the δ(ε) table, the sampling audit and the verdict.
func auditText(w io.Writer, points []audit.Point, r *audit.MCResult, mutant bool, verdict string) {
	if len(points) > 0 {
		fmt.Fprintf(w, "\nε\tδ(A‖B)\tδ(B‖A)\tverdict\n")
	}
	for _, pt := range points {
		fmt.Fprintf(w, "%g\t%.6g\t%.6g\t%s\n", pt.Eps, pt.DeltaAB, pt.DeltaBA, pt.Verdict)
	}
	if r != nil {
		fmt.Fprintf(w, "\nMonte Carlo, %d runs per side: ε ≥ %.4g with probability ≥ %g; these runs can show at most ε ≈ %.4g\n",
			r.Runs, r.EpsLower, 1-r.Alpha, r.EpsReach)
		fmt.Fprintf(w, "the event that tells A from B best: “%s”, seen in a fraction %.4g of A's runs and %.4g of B's\n", r.Worst.Name, r.Worst.PA, r.Worst.PB)
		if gloss := r.Worst.Gloss(); gloss != "" {
			fmt.Fprintf(w, "(%s)\n", gloss)
		}
	}
	switch {
	case mutant && verdict == "violation":
		fmt.Fprintf(w, "\nverdict: violation — the audit catches this mutant\n")
	case mutant:
		fmt.Fprintf(w, "\nverdict: pass — this pair does not expose the mutant; try a pair it breaks\n")
	default:
		fmt.Fprintf(w, "\nverdict: %s\n", verdict)
	}
}

func lawJSON(l mech.DelLaw) lawOut {
	out := lawOut{PBottom: l.PBottom, Center: l.Centre}
	if l.RStar >= 0 {
		r := l.RStar
		out.RStar = &r
	}
	return out
}

// neighbourOf reads dataset B: a CSV file, or a "replace:" spec applied to
// A.
func neighbourOf(a *dataset.Dataset, spec string, lim dataset.Limits) (*dataset.Dataset, error) {
	if strings.HasPrefix(spec, "replace:") {
		b, _, err := dataset.ParseNeighbour(a, spec)
		if err != nil {
			return nil, usageError{err}
		}
		return b, nil
	}
	return readCSV(spec, lim)
}

// ormeLawOut summarises ORME's exact one-query law on one side.
type ormeLawOut struct {
	Score      float64 `json:"score"`
	PPass      float64 `json:"p_pass"`
	Components int     `json:"components"` // kept means the Gaussian mixture has
}

type ormeAuditOut struct {
	Mechanism string            `json:"mechanism"`
	Claimed   privacy.Guarantee `json:"claimed"`
	Changed   *string           `json:"changed_user"`
	Sigma     float64           `json:"sigma"`
	// A and B are the exact laws (null when sampling only, d > 1).
	A          *ormeLawOut     `json:"a"`
	B          *ormeLawOut     `json:"b"`
	Mutant     string          `json:"mutant,omitempty"`
	MonteCarlo *audit.MCResult `json:"monte_carlo,omitempty"`
	Points     []audit.Point   `json:"points"`
	Verdict    string          `json:"verdict"`
	Note       string          `json:"note,omitempty"`
}

// halfNoiseNote says why no one-query pair exposes half the score noise.
const halfNoiseNote = "one query cannot expose half the score noise: a single gate comparison loses at most Δ_s over the larger Laplace scale, ε/4, inside the gate's ε/2; the audit lab's orme-gate catches it over 8 queries"

// auditORME audits one ORME query on the pair: exactly for 1-D user means,
// by sampling in any dimension.
func auditORME(e *env, d *runner.Config, r auditRequest) error {
	p, err := d.ORMEParams()
	if err != nil {
		return usageError{err}
	}
	if p.Queries != 1 {
		return usagef("--queries %d: the ORME audit covers one query (T = 1); the audit lab's orme-gate audits the gate over several", p.Queries)
	}
	if err := r.knownMutant("orme's broken variants are", audit.ORMEMutantNames()); err != nil {
		return err
	}
	cal, err := p.Calibrate(r.a.N())
	if err != nil {
		return usageError{err}
	}
	if r.a.Dim != 1 && !r.mc {
		return usagef("the exact ORME audit needs 1-D users (the data has d = %d): add --monte-carlo to audit by sampling", r.a.Dim)
	}
	ma, mb := r.a.Means(), r.b.Means() // each user's query value is their item mean
	g := cal.Guarantee()
	out := ormeAuditOut{Mechanism: scenario.MechORME, Claimed: g, Changed: r.changedID(), Sigma: cal.Sigma, Mutant: r.mutant, Points: []audit.Point{}}
	if r.mutant == audit.ORMEHalfScoreNoise {
		out.Note = halfNoiseNote
	}
	if r.a.Dim == 1 {
		la, err := audit.ORMEExactLaw(p, column(ma), r.mutant)
		if err != nil {
			return mechErr(err)
		}
		lb, err := audit.ORMEExactLaw(p, column(mb), r.mutant)
		if err != nil {
			return mechErr(err)
		}
		pair, err := audit.NewORMEPair(la, lb)
		if err != nil {
			return mechErr(err)
		}
		out.Points = pair.Curve(g, r.eps)
		out.A = &ormeLawOut{Score: score(ma, p.Tau), PPass: la.PPass, Components: len(la.Means)}
		out.B = &ormeLawOut{Score: score(mb, p.Tau), PPass: lb.PPass, Components: len(lb.Means)}
	}
	if r.mc {
		sa, err := audit.ORMESampler(p, ma, r.mutant)
		if err != nil {
			return mechErr(err)
		}
		sb, err := audit.ORMESampler(p, mb, r.mutant)
		if err != nil {
			return mechErr(err)
		}
		if out.MonteCarlo, err = r.sample(e, "sampling both sides", sa, sb, g); err != nil {
			return err
		}
	}
	out.Verdict = verdict(out.Points, out.MonteCarlo)
	return r.f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "ORME, one query over %d users; τ = %g, σ = %.6g\nclaimed: %s\n", r.a.N(), p.Tau, cal.Sigma, g)
		claimText(w, g, r.mutant, "")
		for _, side := range []struct {
			name string
			l    *ormeLawOut
		}{{"A", out.A}, {"B", out.B}} {
			if side.l != nil {
				fmt.Fprintf(w, "%s: score %.6g of 4n/5 = %g, Pr[pass] = %.6g, %d kept means in the mixture\n",
					side.name, side.l.Score, cal.Gate.Threshold, side.l.PPass, side.l.Components)
			}
		}
		auditText(w, out.Points, out.MonteCarlo, r.mutant != "", out.Verdict)
		if out.Note != "" {
			fmt.Fprintf(w, "note: %s\n", out.Note)
		}
	})
}

// column is the first coordinate of each point.
func column(pts [][]float64) []float64 {
	out := make([]float64, len(pts))
	for i, p := range pts {
		out[i] = p[0]
	}
	return out
}

// score is ORME's concentration score of the points at τ.
func score(pts [][]float64, tau float64) float64 {
	return robust.Score(robust.NewIndex(pts).CountsAt(tau)[0])
}
