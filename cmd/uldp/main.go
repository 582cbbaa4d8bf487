// Command uldp is ULDP Lab's command-line tool: calibrate noise, compose
// budgets, inspect TDLap, draw seeded samples, generate and check datasets and
// scenarios, and serve the lesson site.
//
// Output is JSON by default (for scripts and graders) and plain text with
// --format text. Bad input exits with status 2 and a message on stderr that
// says what is wrong and how to fix it.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// command is one subcommand.
type command struct {
	summary string
	run     func(env *env, args []string) error
}

var commands = map[string]command{
	"tdlap":     {"TDLap(ε, δ): κ, normaliser, pmf and cdf", cmdTDLap},
	"calibrate": {"noise scale for a mechanism, with its derivation and validity", cmdCalibrate},
	"compose":   {"total (ε, δ) of k steps under basic, advanced, zCDP and optimal composition", cmdCompose},
	"sample":    {"seeded samples from tdlap, laplace, gaussian or dlaplace", cmdSample},
	"scenario":  {"scenario files: uldp scenario validate FILE", cmdScenario},
	"dataset":   {"datasets: uldp dataset gen … --out FILE.csv|FILE.json", cmdDataset},
	"serve":     {"serve the lesson site on 127.0.0.1", cmdServe},
	"run":       {"run a mechanism on a dataset or scenario: result and trace", cmdRun},
	"step":      {"walk a run's trace step by step (interactive on a terminal)", cmdStep},
	"audit":     {"exact δ(ε) of a mechanism on a neighbouring pair, against its guarantee", cmdAudit},
	"exercises": {"exercise packs: uldp exercises list|solve [--pack builtin|FILE]", cmdExercises},
	"class":     {"a class server's classes: uldp class create|export --db FILE …", cmdClass},
	"grade":     {"grade a student's answers: uldp grade --answers FILE [--pack builtin|FILE]", cmdGrade},
}

// env carries the streams a command writes to.
type env struct {
	stdout, stderr io.Writer
}

// usageError is bad input: exit status 2.
type usageError struct{ error }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	e := &env{stdout: stdout, stderr: stderr}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "uldp: unknown command %q; run 'uldp help' for the list\n", args[0])
		return 2
	}
	err := c.run(e, args[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	}
	fmt.Fprintf(stderr, "uldp %s: %s\n", args[0], shorten(err.Error()))
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// shorten cuts a message that quotes a huge input (a flag of 100 MB, say)
// to its first 1,000 bytes, on a character boundary.
func shorten(msg string) string {
	const keep = 1000
	if len(msg) <= keep {
		return msg
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (message cut at %d of %d bytes)", msg[:cut], cut, len(msg))
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "uldp — ULDP Lab, user-level differential privacy for convex optimisation")
	fmt.Fprintln(w, "\nUsage: uldp <command> [flags]   (uldp <command> -h for the command's flags)")
	fmt.Fprintln(w, "\nCommands:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, n := range slices.Sorted(maps.Keys(commands)) {
		fmt.Fprintf(tw, "  %s\t%s\n", n, commands[n].summary)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nOutput is JSON unless --format text is given. Exit status 2 means bad input.")
}

// flags returns a flag set for a subcommand whose errors are usage errors.
func flags(e *env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "Usage: uldp %s\n\nFlags:\n", synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses args and rejects stray positional arguments.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err}
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (flags are written --name value)", fs.Arg(0))
	}
	return nil
}

// required checks that every named flag was set on the command line.
func required(fs *flag.FlagSet, names ...string) error {
	set := given(fs)
	var missing []string
	for _, n := range names {
		if !set[n] {
			missing = append(missing, "--"+n)
		}
	}
	if len(missing) > 0 {
		return usagef("missing %s (see uldp %s -h)", strings.Join(missing, ", "), fs.Name())
	}
	return nil
}

func given(fs *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// format is the --format flag.
type format struct{ text bool }

func (f *format) register(fs *flag.FlagSet) {
	fs.Func("format", "output format: json or text (default json)", func(s string) error {
		switch s {
		case "json":
			f.text = false
		case "text":
			f.text = true
		default:
			return fmt.Errorf("format %q: use json or text", s)
		}
		return nil
	})
}

// emit writes v as indented JSON, or calls text with a tab writer. A
// result holding ±Inf or NaN is refused, in either format, as bad input.
func (f format) emit(e *env, v any, text func(w io.Writer)) error {
	if p := nonFinite(v); p != "" {
		return notFinite(p)
	}
	if f.text {
		// The tab writer writes every cell on its own: buffered, a million
		// lines are a few hundred writes, not three million.
		bw := bufio.NewWriterSize(e.stdout, 64<<10)
		tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', 0)
		text(tw)
		if err := tw.Flush(); err != nil {
			return err
		}
		return bw.Flush()
	}
	enc := json.NewEncoder(e.stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		if u := (*json.UnsupportedValueError)(nil); errors.As(err, &u) {
			return notFinite("a value written by " + u.Value.Type().String())
		}
		return err
	}
	return nil
}
