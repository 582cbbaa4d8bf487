package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/semisens"
)

// semiAuditOut is a pvmw audit: a replay on a neighbour, or Monte Carlo
// audits of the views on the built-in instance.
type semiAuditOut struct {
	Mechanism string          `json:"mechanism"`
	Replay    *replayOut      `json:"replay,omitempty"`
	Views     []semiViewAudit `json:"views,omitempty"`
	Mutant    string          `json:"mutant,omitempty"`
	Verdict   string          `json:"verdict"`
}

type replayOut struct {
	Example   int  `json:"example"` // 1-based
	From      int  `json:"from"`    // sensitive values, 1-based
	To        int  `json:"to"`
	Updates   int  `json:"updates"`
	Answers   int  `json:"answers"`
	Identical bool `json:"identical"`
	Reads     int  `json:"sensitive_reads"`
}

type semiViewAudit struct {
	View       string            `json:"view"`
	Claimed    privacy.Guarantee `json:"claimed"`
	MonteCarlo audit.MCResult    `json:"monte_carlo"`
}

func auditSemi(e *env, args []string) error {
	fs := flags(e, "audit", "audit --mech pvmw [--view gate|release|answer|all] [--mutant NAME] [--runs N] [--alpha A] [--seed S] [--format text]\n       uldp audit --mech pvmw --data FILE.csv --k K --eps E --delta D [pvmw's flags] --neighbour replace:I=Y")
	var s semiFlags
	s.register(fs)
	view := fs.String("view", "all", "Monte Carlo: what to look at — gate (the first test's halting index, pure ε′), release (the first v = f(D) + z), answer (the beliefs after an update), or all")
	mutant := fs.String("mutant", "", "Monte Carlo: audit a broken variant instead: "+strings.Join(semisens.MutantNames(), ", "))
	runs := fs.Int("runs", 100_000, "Monte Carlo runs per side")
	alpha := fs.Float64("alpha", 1e-3, "Monte Carlo: probability of flagging a correct mechanism, per view")
	nb := fs.String("neighbour", "", "replay: the neighbour, replace:I=Y (example I's sensitive value becomes Y, both 1-based)")
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	set := given(fs)
	if set["data"] {
		if set["view"] || set["mutant"] || set["runs"] || set["alpha"] {
			return usagef("--view, --mutant, --runs and --alpha are the Monte Carlo audit's, which runs on its own small instance: drop them or --data")
		}
		return replaySemi(e, fs, &s, set, *nb, f)
	}
	if set["neighbour"] {
		return usagef("--neighbour needs --data: the replay runs on your data and its neighbour")
	}
	m, err := semisens.ParseMutant(*mutant)
	if err != nil {
		return usageError{err}
	}
	views := audit.PVMWViews
	if *view != "all" {
		views = []string{*view}
	}
	if *runs < 1000 || *runs > audit.MaxRuns {
		return usagef("--runs %d: give 1,000 to %d runs per side", *runs, audit.MaxRuns)
	}
	out := semiAuditOut{Mechanism: mechPVMW, Mutant: *mutant, Verdict: "pass"}
	for _, v := range views {
		a, err := audit.NewPVMWAudit(v, m, 1e-3)
		if err != nil {
			return usageError{err}
		}
		ctx, done, progress := withProgress(e, "sampling the "+v+" view on both sides")
		res, err := audit.MonteCarlo(ctx, a.A, a.B, a.Claim, audit.MCConfig{Runs: *runs, Alpha: *alpha, Seed: s.seed}, progress)
		done()
		if err != nil {
			return mechErr(err)
		}
		out.Views = append(out.Views, semiViewAudit{v, a.Claim, res})
		if res.Verdict == "violation" {
			out.Verdict = "violation"
		}
	}
	return f.emit(e, out, func(w io.Writer) {
		what := "PVMW"
		if out.Mutant != "" {
			what = "PVMW's broken variant " + out.Mutant
		}
		fmt.Fprintf(w, "%s on 4 examples, one of which changes its sensitive value (f(A) = 1, f(B) = ½)\n", what)
		for _, v := range out.Views {
			r := v.MonteCarlo
			fmt.Fprintf(w, "\n%s: claimed %s (%s)\n", v.View, v.Claimed, v.Claimed.Note)
			fmt.Fprintf(w, "  %d runs per side: ε ≥ %.4g with probability ≥ %g (these runs can show at most %.4g) → %s\n", r.Runs, r.EpsLower, 1-r.Alpha, r.EpsReach, r.Verdict)
		}
		fmt.Fprintf(w, "\nverdict: %s\n", out.Verdict)
	})
}

// replaySemi trains on the data, then replays the transcript on the
// neighbour's public data.
func replaySemi(e *env, fs *flag.FlagSet, s *semiFlags, set map[string]bool, nb string, f format) error {
	if nb == "" {
		return usagef("missing --neighbour replace:I=Y: the example whose sensitive value changes, and its new value")
	}
	spec, ok := strings.CutPrefix(nb, "replace:")
	is, ys, ok2 := strings.Cut(spec, "=")
	i, err1 := strconv.Atoi(is)
	y, err2 := strconv.Atoi(ys)
	if !ok || !ok2 || err1 != nil || err2 != nil {
		return usagef("--neighbour %q: write replace:I=Y, e.g. replace:1=3 (example 1's sensitive value becomes 3)", nb)
	}
	ds, p, err := s.load(fs, set)
	if err != nil {
		return err
	}
	b, err := ds.Neighbour(i-1, y-1)
	if err != nil {
		return usageError{err}
	}
	ctx, done, progress := withProgress(e, "training through PVMW")
	res, tr, err := semisens.Train(ctx, ds, p, rng.New(s.seed), progress)
	done()
	if err != nil {
		return mechErr(err)
	}
	before := b.Reads()
	updates, answers, err := semisens.Replay(&b.Public, tr, semisens.MWUParams{Eta: p.PVMW.Eta, C: p.PVMW.C}, nil)
	out := semiAuditOut{Mechanism: mechPVMW, Verdict: "pass",
		Replay: &replayOut{Example: i, From: ds.Reveal()[i-1] + 1, To: y, Updates: updates, Answers: answers, Identical: err == nil && answers == res.Queries, Reads: b.Reads() - before}}
	if !out.Replay.Identical || out.Replay.Reads != 0 {
		out.Verdict = "violation"
	}
	return f.emit(e, out, func(w io.Writer) {
		r := out.Replay
		fmt.Fprintf(w, "trained on %s (%d queries, %d updates); neighbour: example %d's sensitive value %d → %d\n", s.data, res.Queries, res.Updates, r.Example, r.From, r.To)
		fmt.Fprintf(w, "replayed on the neighbour's public data from the released v and ι: %d updates, %d answers, identical: %v, sensitive values read: %d\n", r.Updates, r.Answers, r.Identical, r.Reads)
		if err != nil {
			fmt.Fprintf(w, "replay: %v\n", err)
		}
		fmt.Fprintf(w, "verdict: %s (the beliefs are post-processing of the released values)\n", out.Verdict)
	})
}
