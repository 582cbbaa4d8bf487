package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/trace"
)

// cmdStep walks a run's trace: interactively on a terminal (Enter or n: next,
// b: back, q: quit), or printed up to --to K.
func cmdStep(e *env, args []string) error {
	if semiMech(args) != "" {
		return stepSemi(e, args)
	}
	fs := flags(e, "step", "step --mech NAME (--data FILE.csv | --scenario FILE.json) --eps E --delta D (--target-sens X | --rk R --rx R) [--seed S] [--to K]")
	var d runner.Config
	d.Register(fs)
	data := fs.String("data", "", "dataset CSV (user,x1,…,xd)")
	scen := fs.String("scenario", "", "scenario JSON instead of --data and the parameter flags")
	seed := fs.Uint64("seed", 1, "seed of the tdlap and gauss streams")
	to := toFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	ds, err := loadInput(fs, &d, *data, *scen, seed, checkJob(&d))
	if err != nil {
		return err
	}
	d.Record = true // the steps are the point (DP-SGD records only when asked)
	j, err := d.Job()
	if err != nil {
		return usageError{err}
	}
	ctx, done, progress := withProgress(e, j.What)
	run := func(ctx cancel.Context, data *dataset.Dataset, s *rng.Streams) (*trace.Trace, error) {
		_, tr, err := j.Run(ctx, data, s, progress)
		return tr, err
	}
	st, err := trace.NewStepper(ctx, run, ds, rng.New(*seed))
	done()
	if err != nil {
		return mechErr(err)
	}
	return stepThrough(e, st, *to)
}

// stepThrough shows a run's steps: the first to of them (all when to < 0) when
// that is asked or standard input is no terminal, else interactively.
// toFlag registers --to K, the steps to print before stopping: -1 (not
// given) prints them all, or steps interactively on a terminal.
func toFlag(fs *flag.FlagSet) *int {
	to := -1
	fs.Func("to", "print the first K steps and stop (default: all, or interactive on a terminal)", func(v string) error {
		k, err := strconv.Atoi(v)
		if err != nil || k < 0 {
			return fmt.Errorf("%q: give how many steps to print, 0 or more", v)
		}
		to = k
		return nil
	})
	return &to
}

func stepThrough(e *env, st *trace.Stepper, to int) error {
	show := func() {
		cur, _ := st.Current()
		fmt.Fprintf(e.stdout, "step %d of %d [%s] %s\n", st.Pos(), st.Len(), cur.Kind, cur.Text)
	}
	in := os.Stdin
	isTTY := term.IsTerminal(int(in.Fd())) && e.stdout == io.Writer(os.Stdout)
	if to >= 0 || !isTTY {
		k := st.Len()
		if to >= 0 {
			if to > st.Len() {
				return usagef("--to %d: the run has %d steps", to, st.Len())
			}
			k = to
		}
		for st.Pos() < k {
			st.Next()
			show()
		}
		return nil
	}
	fmt.Fprintf(e.stdout, "%d steps. Enter or n: next · b: back · q: quit\n", st.Len())
	r := bufio.NewReader(in)
	for {
		line, err := r.ReadString('\n')
		cmd := strings.TrimSpace(line)
		switch {
		case cmd == "q" || err != nil:
			return nil
		case cmd == "b":
			if st.Prev() {
				if st.Pos() == 0 {
					fmt.Fprintln(e.stdout, "step 0: before the run")
				} else {
					show()
				}
			}
		default:
			if _, ok := st.Next(); !ok {
				fmt.Fprintln(e.stdout, "end of the run (b: back, q: quit)")
				continue
			}
			show()
		}
	}
}
