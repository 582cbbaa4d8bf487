package viz

import (
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// Field binds one declared control to the scene value it edits: the
// control's current value is read from the scene, and a new value is parsed
// and range-checked here, once for every scene, with a message that says
// what is wrong and what would do.
type Field struct {
	Control
	v binding
}

// binding reads and writes a field's value. The common ones hold a single
// pointer, so a Field costs no allocation beyond its Form: scenes declare
// their forms on every frame.
type binding interface {
	get() string
	set(c *Control, v string) error
}

// Int binds a count (users, items, steps): whole numbers only, and a slider
// moves in whole steps (Step at least 1).
func Int(p *int, c Control) Field {
	c.Step = math.Max(math.Round(c.Step), 1)
	return Field{c, intVar{p}}
}

type intVar struct{ p *int }

func (b intVar) get() string { return strconv.Itoa(*b.p) }
func (b intVar) set(c *Control, v string) error {
	x, err := ParseNumber(*c, v)
	if err != nil {
		return err
	}
	if x != math.Trunc(x) {
		return format.Errorf("%s = %v: a count is a whole number", c.Label, x)
	}
	*b.p = int(x)
	return nil
}

// Float binds a real number within the control's range.
func Float(p *float64, c Control) Field { return Field{c, floatVar{p}} }

type floatVar struct{ p *float64 }

func (b floatVar) get() string { return FormatNumber(*b.p) }
func (b floatVar) set(c *Control, v string) error {
	x, err := ParseNumber(*c, v)
	if err == nil {
		*b.p = x
	}
	return err
}

// Bool binds a toggle: "true" or "false", and "" (its key) flips it.
func Bool(p *bool, c Control) Field {
	c.Kind = Toggle
	return Field{c, boolVar{p}}
}

type boolVar struct{ p *bool }

func (b boolVar) get() string { return strconv.FormatBool(*b.p) }
func (b boolVar) set(c *Control, v string) error {
	if v == "" {
		*b.p = !*b.p
		return nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return format.Errorf("%s %q: use true or false", c.Label, v)
	}
	*b.p = on
	return nil
}

// Choose binds one of c.Choices.
func Choose[T ~string](p *T, c Control) Field {
	c.Kind = Choice
	return Field{c, choiceVar[T]{p}}
}

type choiceVar[T ~string] struct{ p *T }

func (b choiceVar[T]) get() string { return string(*b.p) }
func (b choiceVar[T]) set(c *Control, v string) error {
	if !slices.Contains(c.Choices, v) {
		return format.Errorf("%s %q: choose %s", c.Label, v, orList(c.Choices))
	}
	*b.p = T(v)
	return nil
}

// Seed binds the seed field (S re-seeds).
func Seed(p *uint64) Field { return Field{SeedControl(*p), seedVar{p}} }

type seedVar struct{ p *uint64 }

func (b seedVar) get() string { return strconv.FormatUint(*b.p, 10) }
func (b seedVar) set(_ *Control, v string) error {
	s, err := ParseSeed(v)
	if err == nil {
		*b.p = s
	}
	return err
}

// StreamsSeed binds the seed field to a scene's random streams: a new seed
// is a fresh set of streams.
func StreamsSeed(p **rng.Streams) Field { return Field{SeedControl((*p).Seed()), streamsVar{p}} }

type streamsVar struct{ p **rng.Streams }

func (b streamsVar) get() string { return strconv.FormatUint((*b.p).Seed(), 10) }
func (b streamsVar) set(_ *Control, v string) error {
	s, err := ParseSeed(v)
	if err == nil {
		*b.p = rng.New(s)
	}
	return err
}

// Mode binds the mode selector to the modes a lesson offers.
func Mode(p *privacy.Mode, modes ...privacy.Mode) Field {
	c := ModeControl(*p)
	c.Choices = make([]string, len(modes))
	for i, m := range modes {
		c.Choices[i] = m.String()
	}
	return Field{c, modeVar{p}}
}

type modeVar struct{ p *privacy.Mode }

func (b modeVar) get() string { return b.p.String() }
func (b modeVar) set(c *Control, v string) error {
	m, err := privacy.ParseMode(v)
	if err != nil || !slices.Contains(c.Choices, v) {
		return format.Errorf("mode %q: use %s", v, orList(c.Choices))
	}
	*b.p = m
	return nil
}

// Action binds a button: Set(name, "") performs do.
func Action(c Control, do func() error) Field {
	c.Kind = Button
	return Field{c, action(do)}
}

type action func() error

func (action) get() string                  { return "" }
func (b action) set(*Control, string) error { return b() }

// Numbers binds a list of numbers typed as text, "1, 2.5, -3": at most max
// of them, each finite and within ±10⁶; an error names the item by what it
// is ("query 3").
func Numbers(p *[]float64, c Control, what string, max int) Field {
	c.Kind = TextField
	return Field{c, numbersVar{p, what, max}}
}

type numbersVar struct {
	p    *[]float64
	what string
	max  int
}

func (b numbersVar) get() string {
	return FormatNumbers(*b.p)
}

func (b numbersVar) set(c *Control, v string) error {
	fields := strings.Split(v, ",")
	if len(fields) > b.max {
		return format.Errorf("%s: %d values, at most %d", c.Label, len(fields), b.max)
	}
	out := make([]float64, len(fields))
	for i, f := range fields {
		x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e6 {
			return format.Errorf("%s %d: %q is not a number within ±10⁶", b.what, i+1, strings.TrimSpace(f))
		}
		out[i] = x
	}
	*b.p = out
	return nil
}

// Custom binds a control whose text the scene reads itself (a list of
// values, say): set parses v and reports what is wrong with it.
func Custom(c Control, get func() string, set func(v string) error) Field {
	return Field{c, custom{get, set}}
}

type custom struct {
	read  func() string
	write func(string) error
}

func (b custom) get() string                    { return b.read() }
func (b custom) set(_ *Control, v string) error { return b.write(v) }

// Explained returns the field with another help text.
func (f Field) Explained(help string) Field {
	f.Help = help
	return f
}

// Described returns the field with each choice's help (see
// Control.ChoiceHelp); choices it does not name keep the ones they had.
func (f Field) Described(each map[string]string) Field {
	m := maps.Clone(f.ChoiceHelp)
	if m == nil {
		m = map[string]string{}
	}
	maps.Copy(m, each)
	f.ChoiceHelp = m
	return f
}

// Labelled returns the field under another label.
func (f Field) Labelled(label string) Field {
	f.Label = label
	return f
}

// Form is a scene's fields in the order they are shown.
type Form []Field

// Controls declares the fields' controls with their current values.
func (f Form) Controls() []Control {
	out := make([]Control, len(f))
	for i, fd := range f {
		out[i] = fd.Control
		out[i].Value = fd.v.get()
		out[i].ChoiceHelp = nil // consumed here: Help says it
		if h := fd.ChoiceHelp[out[i].Value]; h != "" {
			out[i].Help = out[i].Value + ": " + h
			if fd.Help != "" {
				out[i].Help += ". " + fd.Help
			}
		}
	}
	return out
}

// Set parses value into the field called name; the error says what is
// wrong, and then the bound value is unchanged.
func (f Form) Set(name, value string) error {
	for i := range f {
		if fd := &f[i]; fd.Name == name {
			if fd.Disabled {
				return format.Errorf("%s does nothing now", fd.Label)
			}
			return fd.v.set(&fd.Control, value)
		}
	}
	return format.Errorf("no control %q in this lesson", name)
}

// orList writes choices as "a, b or c".
func orList(xs []string) string {
	if len(xs) < 2 {
		return strings.Join(xs, "")
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " or " + xs[len(xs)-1]
}
