package main

import (
	"fmt"
	"io"

	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/trace"
)

// vec writes a point for reading, four significant digits a coordinate:
// (0.2518, 0.9678); nil (a ⊥ or a halt) is "⊥".
func vec(x []float64) string {
	if x == nil {
		return "⊥"
	}
	return trace.Vec(x)
}

// unmet writes the preconditions a guarantee is missing, one a line, under
// the line that summarised it.
func unmet(w io.Writer, g privacy.Guarantee) {
	if g.Mode == privacy.NonPrivate {
		return
	}
	for _, p := range g.Unmet() {
		fmt.Fprintf(w, "  • %s\n", p)
	}
}
