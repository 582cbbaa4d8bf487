// Package scenetest has the helpers the scenes' tests share: a frame at
// the page's size, settings that must take, readouts and controls by name,
// drags, text in a display list, and the checks that a figure fits its
// frame. Importing it gives viz a clock, as the front ends do.
package scenetest

import (
	"bytes"
	"maps"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
)

// W and H are the size of the frames tests draw: a desktop window's figure.
const W, H = 900, 640

// Open puts the scene s in an app and applies settings, name and value,
// in order. It fails t if s opens on a run that failed (the readout
// viz.FailedReadouts shows) or refuses a setting.
func Open[S viz.Scene](t *testing.T, s S, settings ...[2]string) (*viz.App, S) {
	t.Helper()
	a := viz.NewApp(s)
	if r, ok := Readout(a, "error"); ok {
		t.Fatalf("%s opens on a failed run: %s", s.Info().Name, r.Text)
	}
	for _, kv := range settings {
		MustSet(t, a, kv[0], kv[1])
	}
	return a, s
}

// Frame is a's figure at W × H.
func Frame(a *viz.App) *viz.List {
	l, _ := a.Frame(W, H)
	return l
}

// Seen is what a reader of a sees: the figure, as the page receives it,
// the panel and the words.
func Seen(a *viz.App) []byte {
	l, _ := a.Frame(900, 600)
	out := viz.Encode(l, nil)
	out = viz.EncodeReadouts(a.Readouts(), out)
	return append(out, a.Describe()...)
}

// Layer splits a frame at its layer (figures have one at most): the
// layer's key, the items inside it, and the items outside it, before and
// after. A frame without a layer has key "" and every item outside.
func Layer(l *viz.List) (key string, inside, outside []viz.Item) {
	in := false
	for _, it := range l.Items {
		switch {
		case it.Kind == viz.Layer:
			key, in = it.Text, true
		case it.Kind == viz.LayerEnd:
			in = false
		case in:
			inside = append(inside, it)
		default:
			outside = append(outside, it)
		}
	}
	return key, inside, outside
}

// MustSet sets a control, failing t if the scene refuses the value, and
// finishes what the change starts computing.
func MustSet(t *testing.T, a *viz.App, name, value string) {
	t.Helper()
	if err := a.Set(name, value); err != nil {
		t.Fatalf("Set(%s, %s): %v", name, value, err)
	}
	a.Settle()
}

// Readout is a's readout called name, if it shows one.
func Readout(a *viz.App, name string) (viz.Readout, bool) {
	for _, r := range a.Readouts() {
		if r.Name == name {
			return r, true
		}
	}
	return viz.Readout{}, false
}

// HasText reports whether the text of l, its lines read in order,
// contains sub.
func HasText(l *viz.List, sub string) bool {
	// A long text may be broken onto lines: read them in order.
	var all []string
	for _, it := range l.Items {
		if it.Kind == viz.Text {
			all = append(all, it.Text)
		}
	}
	return strings.Contains(strings.Join(all, " "), sub)
}

// Control is a's control called name (zero if there is none).
func Control(a *viz.App, name string) viz.Control {
	for _, c := range a.Controls() {
		if c.Name == name {
			return c
		}
	}
	return viz.Control{}
}

// ReadoutValue is the value of a's readout called name, NaN if there is
// none.
func ReadoutValue(a *viz.App, name string) float64 {
	for _, r := range a.Readouts() {
		if r.Name == name {
			return r.Value
		}
	}
	return math.NaN()
}

// Drag drags the pointer from from by (dx, dy) in four moves, as a hand
// would, then finishes what the drag starts computing.
func Drag(a *viz.App, from viz.Point, dx, dy float64) {
	a.Event(viz.Event{Kind: viz.PointerDown, X: from.X, Y: from.Y})
	for k := 1; k <= 4; k++ {
		a.Event(viz.Event{Kind: viz.PointerMove, X: from.X + dx*float64(k)/4, Y: from.Y + dy*float64(k)/4})
	}
	a.Event(viz.Event{Kind: viz.PointerUp, X: from.X + dx, Y: from.Y + dy})
	a.Settle()
}

// Blank is a scene that shows nothing: a second lesson for tests of an
// app that moves between lessons.
type Blank struct{ Name string }

// Info names the scene.
func (b Blank) Info() viz.Info { return viz.Info{Name: b.Name, Title: b.Name} }

// Controls has none.
func (Blank) Controls() []viz.Control { return nil }

// Set refuses every name: there are no controls.
func (Blank) Set(name, _ string) error { return format.Errorf("no control %q", name) }

// Readouts has none.
func (Blank) Readouts() []viz.Readout { return nil }

// Guarantee certifies nothing.
func (Blank) Guarantee() privacy.Guarantee { return privacy.Guarantee{} }

// Pointer ignores input.
func (Blank) Pointer(viz.Event) bool { return false }

// Draw draws an empty frame.
func (Blank) Draw(w, h float64) *viz.List { return &viz.List{Width: w, Height: h} }

// numberRE finds the numbers in a text, as the readouts print them.
var numberRE = regexp.MustCompile(`[0-9]+(\.[0-9]+)?(e[-−+]?[0-9]+)?`)

// Describes checks that the scene in a says in words what its figure
// shows: a description of its own (not the fallback summary) that names at
// least two of the numbers the readouts show (other than 0 and 1; the one
// there is, if only one), and that changes when change alters the state.
func Describes(t *testing.T, a *viz.App, change func()) {
	t.Helper()
	if _, ok := a.Scene().(viz.Describer); !ok {
		t.Fatalf("%s does not describe its figure", a.Scene().Info().Name)
	}
	Frame(a)
	before := a.Describe()
	// The readouts' numbers other than 0 and 1, and those the words name.
	shown, named := map[string]bool{}, map[string]bool{}
	for _, r := range a.Readouts() {
		for _, n := range numberRE.FindAllString(r.Text, -1) {
			shown[n] = n != "0" && n != "1"
		}
	}
	for _, n := range numberRE.FindAllString(before, -1) {
		named[n] = shown[n]
	}
	count := func(m map[string]bool) (k int) {
		for _, ok := range m {
			if ok {
				k++
			}
		}
		return k
	}
	if got, want := count(named), min(2, count(shown)); got < want {
		t.Errorf("the description names %d of the readouts' numbers %v: %q", got, slices.Sorted(maps.Keys(shown)), before)
	}
	change()
	Frame(a)
	if after := a.Describe(); after == before {
		t.Errorf("the description did not change with the state: %q", before)
	}
}

// KeyboardMatchesMouse checks that the keyboard moves an item of the
// figure as the mouse does: in one app from open, the keys choose step to
// a state and pick an item, which Enter picks up, three Shift+→ and one
// Shift+↑ move and Enter drops. The item itself must have moved (its name
// changed: names say where an item is), and the readouts or description
// too. Where the item is the one on top at its place, a mouse dragging
// from there by the same offset in another app, after the same keys, must
// leave the same readouts and description.
func KeyboardMatchesMouse(t *testing.T, open func() *viz.App, choose ...string) {
	t.Helper()
	a := open()
	Frame(a)
	for _, k := range choose {
		a.Key(k)
		Frame(a)
	}
	start := readoutTexts(a)
	id := a.Chosen()
	at, ok := a.LastFrame().Locate(id)
	if id == 0 || !ok {
		t.Fatalf("the keys %v chose nothing", choose)
	}
	onTop := a.LastFrame().Hit(at, 0) == id
	name := a.Selection()
	for _, k := range []string{"Enter", "Shift+ArrowRight", "Shift+ArrowRight", "Shift+ArrowRight", "Shift+ArrowUp", "Enter"} {
		if !a.Key(k) {
			t.Fatalf("key %s did nothing", k)
		}
	}
	a.Settle()
	Frame(a)
	if moved := a.Selection(); moved == name || a.Chosen() != id {
		t.Errorf("the chosen item did not move: %q, then %q", name, moved)
	}
	byKey := readoutTexts(a)
	if slices.Equal(byKey, start) {
		t.Errorf("moving the item chosen by %v changed neither readout nor description", choose)
	}
	if !onTop {
		t.Logf("item %d is covered where it is drawn: no mouse drag takes it there", id)
		return
	}
	b := open()
	Frame(b)
	for _, k := range choose { // the same steps; its choice does not touch the drag
		b.Key(k)
		Frame(b)
	}
	Drag(b, at, 3*viz.KeyStepLarge, -viz.KeyStepLarge)
	if byMouse := readoutTexts(b); !slices.Equal(byKey, byMouse) {
		t.Errorf("moved by keys, the readouts and description are\n%q\nby the mouse\n%q", byKey, byMouse)
	}
}

// readoutTexts is what a's panel and description say.
func readoutTexts(a *viz.App) []string {
	var out []string
	for _, r := range a.Readouts() {
		out = append(out, r.Name+": "+r.Text)
	}
	if d, ok := a.Scene().(viz.Describer); ok {
		out = append(out, d.Describe())
	}
	return out
}

// Opens returns a function that opens a fresh scene of newScene with
// settings: for checks that compare two apps from the same start.
func Opens[S viz.Scene](t *testing.T, newScene func() S, settings ...[2]string) func() *viz.App {
	return func() *viz.App {
		a, _ := Open(t, newScene(), settings...)
		return a
	}
}

// Chooses checks that keys, pressed on a fresh frame of a, choose an item
// the keyboard's selection names with want.
func Chooses(t *testing.T, a *viz.App, want string, keys ...string) {
	t.Helper()
	Frame(a)
	for _, k := range keys {
		a.Key(k)
		Frame(a)
	}
	if got := a.Selection(); !strings.Contains(got, want) {
		t.Errorf("after %v the selection is %q, want it to name %q", keys, got, want)
	}
}

// Certifies presses a's certify button (what names the case in failures)
// and checks that the run is then certified and the button gone; false
// if the settings were refused.
func Certifies(t *testing.T, a *viz.App, what string) bool {
	t.Helper()
	if err := a.Set(viz.CtlCertify, ""); err != nil {
		t.Errorf("%s: the certified settings: %v", what, err)
		return false
	}
	a.Settle()
	if g := a.Guarantee(); !g.Certified() {
		var unmet []string
		for _, p := range g.Unmet() {
			unmet = append(unmet, p.String())
		}
		t.Errorf("%s: the nearest certified settings leave unmet: %s", what, strings.Join(unmet, "; "))
	}
	if Control(a, viz.CtlCertify).Name != "" {
		t.Errorf("%s: certified, yet still offers certified settings", what)
	}
	return true
}

// Collisions lists the pairs of texts in l that share a line (their
// anchors less than half a size apart vertically) and whose extents
// overlap by more than a pixel: two labels printed into each other
// ("0.00822halt at step 1").
func Collisions(l *viz.List) [][2]string {
	type span struct {
		lo, hi, y, size float64
		text            string
	}
	var spans []span
	for _, it := range l.Items {
		if it.Kind != viz.Text || strings.TrimSpace(it.Text) == "" {
			continue
		}
		w := viz.NumberWidth(it.Text, it.Size)
		lo := it.P[0].X
		switch it.Align {
		case viz.Centre:
			lo -= w / 2
		case viz.Right:
			lo -= w
		}
		spans = append(spans, span{lo, lo + w, it.P[0].Y, it.Size, it.Text})
	}
	var out [][2]string
	for i, a := range spans {
		for _, b := range spans[i+1:] {
			if math.Abs(a.y-b.y) >= 0.5*min(a.size, b.size) {
				continue
			}
			if min(a.hi, b.hi)-max(a.lo, b.lo) > 1 {
				out = append(out, [2]string{a.text, b.text})
			}
		}
	}
	return out
}

// Part is one part of a run, as adopted from another copy (Got) and as
// computed here (Want), named by What ("the trace").
type Part struct {
	What      string
	Got, Want any
}

// SameRun checks that the run page adopted for state is the run here
// computed: each part equal (reflect.DeepEqual), and what a reader sees
// of the two apps byte for byte.
func SameRun(t *testing.T, state string, page, here *viz.App, parts ...Part) {
	t.Helper()
	for _, p := range parts {
		if !reflect.DeepEqual(p.Got, p.Want) {
			t.Errorf("%s: %s adopted differ from %s computed here", state, p.What, p.What)
		}
	}
	if !bytes.Equal(Seen(page), Seen(here)) {
		t.Errorf("%s: the adopted run looks different from the one computed here", state)
	}
}

// Restored returns an app of s restored to state (a link's settings).
func Restored(t *testing.T, s viz.Scene, state string) *viz.App {
	t.Helper()
	a := viz.NewApp(s)
	if err := a.Restore(state); err != nil {
		t.Fatal(err)
	}
	return a
}
