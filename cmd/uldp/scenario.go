package main

import (
	"fmt"
	"io"
	"os"

	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/scenario"
	"github.com/uldplab/uldp/core/trace"
)

type validateOut struct {
	File      string   `json:"file"`
	Valid     bool     `json:"valid"`
	Name      string   `json:"name,omitempty"`
	Mechanism string   `json:"mechanism"`
	Requires  []string `json:"requires"`
	Mode      string   `json:"mode"`
	Seed      uint64   `json:"seed"`
	Source    string   `json:"source"` // "inline" or "generator"
	Users     int      `json:"users"`
	Items     int      `json:"items_per_user"`
	Dim       int      `json:"dim"`
}

func cmdScenario(e *env, args []string) error {
	if len(args) == 0 || args[0] != "validate" {
		return usagef("usage: uldp scenario validate FILE [--format text]")
	}
	fs := flags(e, "scenario validate", "scenario validate FILE [--format text]")
	var f format
	f.register(fs)
	// The file may come before or after the flags.
	rest := args[1:]
	var file string
	if len(rest) > 0 && rest[0] != "" && rest[0][0] != '-' {
		file, rest = rest[0], rest[1:]
	}
	if err := fs.Parse(rest); err != nil {
		return usageError{err}
	}
	if file == "" && fs.NArg() == 1 {
		file = fs.Arg(0)
	} else if fs.NArg() > 0 || file == "" {
		return usagef("give exactly one scenario file: uldp scenario validate FILE")
	}
	r, err := os.Open(file)
	if err != nil {
		return usageError{err}
	}
	defer r.Close()
	s, err := scenario.Decode(r)
	if err != nil {
		return usagef("%s: %v", file, err)
	}
	d, err := s.Build()
	if err != nil {
		return usagef("%s: %v", file, err)
	}
	// The parameters pass the checks run makes, not only the format's.
	if _, err := runner.FromScenario(s).Job(); err != nil {
		return usagef("%s: %v", file, err)
	}
	need, _ := scenario.Requires(s.Mechanism)
	out := validateOut{File: file, Valid: true, Name: s.Name, Mechanism: s.Mechanism, Requires: need,
		Mode: s.Mode.String(), Seed: s.Seed, Source: "inline", Users: d.N(), Dim: d.Dim}
	out.Items, _ = d.M()
	if s.Generator != nil {
		out.Source = "generator " + s.Generator.Kind
	}
	return f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "%s: valid scenario\n", file)
		if out.Name != "" {
			fmt.Fprintf(w, "name:\t%s\n", out.Name)
		}
		fmt.Fprintf(w, "mechanism:\t%s (needs %s)\nmode:\t%s\nseed:\t%d\n", out.Mechanism, trace.And(out.Requires), out.Mode, out.Seed)
		fmt.Fprintf(w, "data:\t%s × %s in ℝ^%d (%s)\n", trace.Count(out.Users, "user"), trace.Count(out.Items, "item"), out.Dim, out.Source)
	})
}
