package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/privacy"
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

func cmdAudit(e *env, args []string) error {
	fs := flags(e, "audit", "audit (--scenario FILE.json | --mech deloutputpert --data A.csv --f mean --eps E --delta D --target-sens X) --neighbour (B.csv | replace:ID=ITEMS) [--at-eps e1,e2,…] [--mutant NAME] [--monte-carlo] [--format text]")
	var d mechFlags
	d.register(fs)
	dataA := fs.String("data", "", "dataset A (CSV)")
	scen := fs.String("scenario", "", "scenario JSON holding dataset A and the parameters, instead of --data and the parameter flags")
	dataB := fs.String("neighbour", "", `dataset B: a CSV, or A with one user's items replaced, as "replace:ID=x1,…,xd;x1,…,xd"`)
	at := fs.String("at-eps", "", "ε values at which to evaluate δ(ε) (default: the claimed ε)")
	mutant := fs.String("mutant", "", "audit a deliberately broken variant instead: "+strings.Join(audit.DelMutantNames(), ", "))
	mc := fs.Bool("monte-carlo", false, "also audit by sampling: runs per side, Clopper–Pearson bounds, an ε lower bound")
	runs := fs.Int("runs", 100_000, "Monte Carlo runs per side")
	alpha := fs.Float64("alpha", 1e-3, "Monte Carlo: probability of flagging a correct mechanism")
	seed := fs.Uint64("seed", 1, "Monte Carlo: seed of the sampling streams")
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "neighbour"); err != nil {
		return err
	}
	a, err := loadInput(fs, &d, *dataA, *scen, seed)
	if err != nil {
		return err
	}
	b, err := neighbourOf(a, *dataB)
	if err != nil {
		return err
	}
	p, err := d.params()
	if err != nil {
		return err
	}
	if p.Mode == privacy.NonPrivate {
		return usagef("--mode non-private claims no guarantee: there is nothing to audit")
	}
	var mut *audit.DelMutant
	if *mutant != "" {
		m, err := audit.DelMutantByName(*mutant)
		if err != nil {
			return usageError{err}
		}
		mut = &m
	}
	eps := []float64{p.Eps}
	if *at != "" {
		eps = eps[:0]
		for _, s := range strings.Split(*at, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
			if err != nil || !(v >= 0) || v > 700 {
				return usagef("--at-eps: %q is not an ε in [0, 700]", s)
			}
			eps = append(eps, v)
		}
	}
	changed, err := audit.CheckNeighbours(a, b)
	if err != nil {
		return usageError{err}
	}
	ctx, done, progress := withProgress(e, "computing both output laws")
	defer done()
	la, err := mech.DelOutputPertLaw(ctx, p, a, progress)
	if err != nil {
		return mechErr(err)
	}
	lb, err := mech.DelOutputPertLaw(ctx, p, b, progress)
	if err != nil {
		return mechErr(err)
	}
	if mut != nil {
		la, lb = mut.Apply(la), mut.Apply(lb)
	}
	g := privacy.Guarantee{Eps: p.Eps, Delta: p.Delta, Mode: p.Mode}
	out := auditOut{Mechanism: privacy.MechDelOutputPert, Claimed: g, Sigma: la.Sigma,
		A: lawJSON(la), B: lawJSON(lb), Mutant: mut, Points: audit.Curve(la, lb, g, eps), Verdict: "pass"}
	if changed >= 0 {
		id := a.Users[changed].ID
		out.Changed = &id
	}
	for _, pt := range out.Points {
		if pt.Verdict == audit.Violation {
			out.Verdict = "violation"
		}
	}
	if *mc {
		ctx, done, progress := withProgress(e, "sampling both sides")
		r, err := audit.MonteCarlo(ctx, audit.LawSampler(la, p.Eps/2, a.Dim), audit.LawSampler(lb, p.Eps/2, a.Dim), g, audit.MCConfig{Runs: *runs, Alpha: *alpha, Seed: *seed}, progress)
		done()
		if err != nil {
			return mechErr(err)
		}
		out.MonteCarlo = &r
		if r.Verdict == "violation" {
			out.Verdict = "violation"
		}
	}
	return f.emit(e, out, func(w io.Writer) {
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
				fmt.Fprintf(w, "%s: r* = %d, Pr[⊥] = %.6g, centre %v\n", name, *l.RStar, l.PBottom, l.Center)
			}
		}
		fmt.Fprintf(w, "\nε\tδ(A‖B)\tδ(B‖A)\tverdict\n")
		for _, pt := range out.Points {
			fmt.Fprintf(w, "%g\t%.6g\t%.6g\t%s\n", pt.Eps, pt.DeltaAB, pt.DeltaBA, pt.Verdict)
		}
		if r := out.MonteCarlo; r != nil {
			fmt.Fprintf(w, "\nMonte Carlo, %d runs per side: ε ≥ %.4g with probability ≥ %g (worst event %s: %.4g vs %.4g); these runs can show at most ε ≈ %.4g\n",
				r.Runs, r.EpsLower, 1-r.Alpha, r.Worst.Name, r.Worst.PA, r.Worst.PB, r.EpsReach)
		}
		switch {
		case mut != nil && out.Verdict == "violation":
			fmt.Fprintf(w, "\nverdict: violation — the audit catches this mutant\n")
		case mut != nil:
			fmt.Fprintf(w, "\nverdict: pass — this pair does not expose the mutant; try a pair it breaks\n")
		default:
			fmt.Fprintf(w, "\nverdict: %s\n", out.Verdict)
		}
	})
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
func neighbourOf(a *dataset.Dataset, spec string) (*dataset.Dataset, error) {
	if strings.HasPrefix(spec, "replace:") {
		b, _, err := dataset.ParseNeighbour(a, spec)
		if err != nil {
			return nil, usageError{err}
		}
		return b, nil
	}
	return readCSV(spec)
}
