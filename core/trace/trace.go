// Package trace records what an algorithm did, step by step, and replays it.
//
// An algorithm run writes typed steps to a Recorder: a kind such as
// "tdlap.draw", a one-line explanation a student can read, and a payload with
// the numbers a scene needs. The finished Trace encodes to versioned JSON.
// A Stepper walks a trace forward and back and branches: it re-runs the
// algorithm on an edited dataset with the same seed (common random numbers),
// so the difference between the two traces is exactly the effect of the edit.
package trace

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/format"
)

// Schema is the trace JSON schema version.
const Schema = 1

// Kind names a type of step, as "<area>.<event>": "tdlap.draw",
// "stability.level", "at.compare", "noise.add", "ledger.spend", ….
type Kind string

// Step is one event of a run.
type Step struct {
	Kind Kind   `json:"kind"`
	Text string `json:"text"`
	// Data holds the step's numbers. Recorded traces keep the algorithm's
	// own value (a struct a scene can type-assert); decoded ones hold
	// the raw JSON.
	Data any `json:"data,omitempty"`
}

// Trace is a whole run: what ran, with which seed, and its steps in order.
type Trace struct {
	Schema    int    `json:"schema"`
	Mechanism string `json:"mechanism"`
	Seed      uint64 `json:"seed"`
	Steps     []Step `json:"steps"`
}

// Recorder collects steps. A nil *Recorder records nothing, so audits that
// run a mechanism 10⁵ times pay nothing for tracing.
type Recorder struct {
	t Trace
}

// NewRecorder starts a trace of mechanism run with seed.
func NewRecorder(mechanism string, seed uint64) *Recorder {
	return &Recorder{t: Trace{Schema: Schema, Mechanism: mechanism, Seed: seed, Steps: []Step{}}}
}

// Add records a step.
func (r *Recorder) Add(kind Kind, text string, data any) {
	if r == nil {
		return
	}
	r.t.Steps = append(r.t.Steps, Step{Kind: kind, Text: text, Data: data})
}

// Addf records a step whose text is formatted.
func (r *Recorder) Addf(kind Kind, data any, layout string, args ...any) {
	if r == nil {
		return
	}
	r.Add(kind, format.Sprintf(layout, args...), data)
}

// Trace returns the steps recorded so far (nil for a nil Recorder).
func (r *Recorder) Trace() *Trace {
	if r == nil {
		return nil
	}
	t := r.t
	t.Steps = append([]Step(nil), r.t.Steps...)
	return &t
}

// Encode writes the trace as JSON, one step per line for readable diffs.
func Encode(w io.Writer, t *Trace) error {
	var buf bytes.Buffer
	buf.WriteString(format.Sprintf("{\"schema\":%d,\"mechanism\":", t.Schema))
	if err := writeJSON(&buf, t.Mechanism); err != nil {
		return err
	}
	buf.WriteString(format.Sprintf(",\"seed\":%d,\"steps\":[", t.Seed))
	for i, s := range t.Steps {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString("\n  ")
		if err := writeJSON(&buf, s); err != nil {
			return format.Errorf("step %d (%s): %v", i, s.Kind, err)
		}
	}
	buf.WriteString("\n]}\n")
	_, err := w.Write(buf.Bytes())
	return err
}

func writeJSON(buf *bytes.Buffer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	buf.Write(b)
	return nil
}

// Decode reads a trace written by Encode, refusing other schema versions.
func Decode(r io.Reader) (*Trace, error) {
	var raw struct {
		Schema    int    `json:"schema"`
		Mechanism string `json:"mechanism"`
		Seed      uint64 `json:"seed"`
		Steps     []struct {
			Kind Kind            `json:"kind"`
			Text string          `json:"text"`
			Data json.RawMessage `json:"data"`
		} `json:"steps"`
	}
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&raw); err != nil {
		return nil, format.Errorf("trace: %v", err)
	}
	if raw.Schema != Schema {
		return nil, format.Errorf("trace schema %d: this ULDP Lab reads schema %d; re-run the scenario to get a current trace", raw.Schema, Schema)
	}
	t := &Trace{Schema: raw.Schema, Mechanism: raw.Mechanism, Seed: raw.Seed, Steps: make([]Step, len(raw.Steps))}
	for i, s := range raw.Steps {
		t.Steps[i] = Step{Kind: s.Kind, Text: s.Text}
		if len(s.Data) > 0 {
			t.Steps[i].Data = s.Data
		}
	}
	return t, nil
}

// Vec formats a vector for a step's text: (1.5, −0.25) with 4 significant
// digits.
func Vec(v []float64) string {
	var b strings.Builder
	b.WriteByte('(')
	for i, x := range v {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(format.Sprintf("%.4g", x))
	}
	b.WriteByte(')')
	return b.String()
}

// Count writes n things for a step's text: "1 test", "3 tests".
func Count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return format.Sprintf("%d %ss", n, thing)
}

// Plus writes a term added to a sum for a step's text: "+ 0.25",
// "− 0.25" (4 significant digits).
func Plus(x float64) string {
	if x < 0 {
		return format.Sprintf("− %.4g", -x)
	}
	return format.Sprintf("+ %.4g", x)
}

// And writes a list in words for a step's text: "a", "a and b", "a, b and
// c"; "none" when empty.
func And(xs []string) string {
	switch len(xs) {
	case 0:
		return "none"
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// Users writes user ids in words: "no user", "user 14", "users 12, 13 and
// 14".
func Users(ids []string) string {
	switch len(ids) {
	case 0:
		return "no user"
	case 1:
		return "user " + ids[0]
	}
	return "users " + And(ids)
}

// Has reports whether any of steps is of one of the kinds: what a figure
// asks of the steps shown so far ("has the gate run yet?").
func Has(steps []Step, kinds ...Kind) bool {
	for _, st := range steps {
		if slices.Contains(kinds, st.Kind) {
			return true
		}
	}
	return false
}

// Last returns the data of the last of steps of the given kind, nil if
// there is none; the steps are a recorded trace's, whose data hold the
// algorithm's own values.
func Last[T any](steps []Step, kind Kind) *T {
	for i := len(steps) - 1; i >= 0; i-- {
		if d, ok := steps[i].Data.(T); ok && steps[i].Kind == kind {
			return &d
		}
	}
	return nil
}
