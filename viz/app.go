package viz

import (
	"bytes"
	"errors"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/trace"
)

// App is what a backend drives: the scenes, the current one, the keyboard
// shortcuts, the stepper bar and the shareable state. Backends call Event,
// Key, Tick and Set, and paint Frame's list when it reports a change.
type App struct {
	scenes []Scene
	// parts are the lessons' other scenes (AddParts), swapped with the
	// shown one when it answers a setting with an ElsewhereError.
	parts  []Scene
	moving bool // a part is being tried (moveTo), which must not recurse
	cur    int
	dirty  bool
	w, h   float64
	list   *List
	// The keyboard's choice among the figure's items (an ID, 0 for none),
	// whether it is held, and where the held item's pointer is.
	sel      int
	held     bool
	at, from Point // the held item's pointer now, and where it was picked up
	// queued is a stepper key pressed while the run it needs was being
	// computed, pressed again when the run is there.
	queued string
	// reduced caps playback at one step a second (the reader asked for
	// reduced motion).
	reduced bool
	// certifyFor is the scene's name and its controls' values when the
	// kept certify button was found: Controls is asked every frame, and
	// finding the nearest certified settings takes a search. Compared in
	// place, a frame allocates nothing for it.
	certifyFor []string
	certifyCtl *Control
	// away is the Remote computation another copy is doing (Hold): the
	// scene's ticks wait while it is the one under way. here is set by
	// Hold and HandOut, so that a module whose bridge hands nothing out
	// (wasm.Run, not RunRemote) links none of this: it ticks the scene
	// unless away is under way, and times the slices the computation
	// under way (young) has taken on this copy (spent, in ms).
	away  string
	here  func(tk Ticker, dt float64) bool
	young string
	spent float64
	long  bool // young has long to go: HandOut offers it
}

// AddParts gives the app the further scenes of its lessons — a lesson the
// browser splits across modules, which one process can show whole. When
// the shown scene answers a setting with an ElsewhereError, the app shows
// the part of the same lesson that takes it.
func (a *App) AddParts(parts ...Scene) { a.parts = append(a.parts, parts...) }

// moveTo shows the part of the current lesson that takes el's state.
func (a *App) moveTo(el ElsewhereError) error {
	if a.moving {
		return el
	}
	a.moving = true
	defer func() { a.moving = false }()
	cur := a.scenes[a.cur]
	for i, p := range a.parts {
		if p.Info().Name != cur.Info().Name {
			continue
		}
		a.scenes[a.cur] = p
		if err := a.Restore(el.State); err == nil {
			a.parts[i], a.dirty = cur, true
			return nil
		}
		a.scenes[a.cur] = cur
	}
	return el
}

// Reopen replaces the scene named as s, and its parts, by s and parts
// (fresh ones: every setting at its default) and shows it. An exercise
// starts this way, as the grader sees it, whatever was explored before.
func (a *App) Reopen(s Scene, parts ...Scene) error {
	name := s.Info().Name
	if err := a.SwitchTo(name); err != nil {
		return err
	}
	a.dropSelection()
	stop(a.scenes[a.cur])
	a.scenes[a.cur] = s
	kept := a.parts[:0]
	for _, p := range a.parts {
		if p.Info().Name != name {
			kept = append(kept, p)
		} else {
			stop(p)
		}
	}
	a.parts, a.dirty = append(kept, parts...), true
	return nil
}

// stop ends a dropped scene's work, if it has any.
func stop(s Scene) {
	if st, ok := s.(Stopper); ok {
		st.Stop()
	}
}

// NewApp returns an app showing the first scene.
func NewApp(scenes ...Scene) *App {
	return &App{scenes: scenes, dirty: true}
}

// Scenes returns the scenes' infos in switcher order.
func (a *App) Scenes() []Info {
	out := make([]Info, len(a.scenes))
	for i, s := range a.scenes {
		out[i] = s.Info()
	}
	return out
}

// Scene returns the current scene.
func (a *App) Scene() Scene { return a.scenes[a.cur] }

// Switch shows scene i.
func (a *App) Switch(i int) error {
	if i < 0 || i >= len(a.scenes) {
		return format.Errorf("scene %d: choose 1 to %d", i+1, len(a.scenes))
	}
	if i != a.cur {
		a.dropSelection()
		a.queued = ""
	}
	a.cur, a.dirty = i, true
	return nil
}

// SwitchTo shows the scene with the given name.
func (a *App) SwitchTo(name string) error {
	for i, s := range a.scenes {
		if s.Info().Name == name {
			return a.Switch(i)
		}
	}
	names := make([]string, len(a.scenes))
	for i, s := range a.scenes {
		names[i] = s.Info().Name
	}
	return format.Errorf("scene %q: choose one of %s", name, strings.Join(names, ", "))
}

// CtlReseed is the app's "new seed" button (key S), added after a scene's
// seed field.
const CtlReseed = "reseed"

// Controls returns the stepper bar (for stepped scenes) and the scene's own
// controls, with a "new seed" button after the seed field.
func (a *App) Controls() []Control {
	// Sized once: a Control is large, and the page asks for them every frame.
	var player []Control
	if st, ok := a.Scene().(Stepped); ok {
		player = st.Player().Controls()
	}
	own := a.Scene().Controls()
	out := append(make([]Control, 0, len(player)+len(own)+2), player...)
	if c, ok := a.certify(own); ok {
		out = append(out, c)
	}
	for _, c := range own {
		out = append(out, c)
		if c.Name == CtlSeed {
			out = append(out, Control{Name: CtlReseed, Label: "new seed", Kind: Button, Key: "s", Help: "the next seed: all noise re-drawn"})
		}
	}
	return out
}

// CtlCertify is the button that moves a Certifier to its nearest certified
// settings; its Group, GroupGuarantee, places it with the guarantee.
const (
	CtlCertify     = "certify"
	GroupGuarantee = "guarantee"
)

// sameSettings reports whether the scene and the values of its controls
// cs are those the certify button was found for.
func (a *App) sameSettings(cs []Control) bool {
	k := 0
	if len(a.certifyFor) == 0 || a.certifyFor[k] != a.Scene().Info().Name {
		return false
	}
	for _, c := range cs {
		if c.Kind == Button {
			continue
		}
		if k++; k >= len(a.certifyFor) || a.certifyFor[k] != c.Value {
			return false
		}
	}
	return k == len(a.certifyFor)-1
}

// certify is the Certifier's button, disabled where it has the line only.
// It waits while the lesson computes: the guarantee shown is then the last
// run's, not the settings', and a click would restart the computation.
func (a *App) certify(own []Control) (Control, bool) {
	c, ok := a.Scene().(Certifier)
	if !ok || a.computing() || !uncertified(a.Guarantee()) {
		a.certifyFor = a.certifyFor[:0] // found afresh for the next run shown
		return Control{}, false
	}
	if !a.sameSettings(own) {
		a.certifyFor = append(a.certifyFor[:0], a.Scene().Info().Name)
		for _, c := range own {
			if c.Kind != Button {
				a.certifyFor = append(a.certifyFor, c.Value)
			}
		}
		a.certifyCtl = nil
		if why, settings, ok := c.Certify(); ok {
			a.certifyCtl = &Control{Name: CtlCertify, Label: "use the nearest certified settings", Kind: Button, Help: why,
				Group: GroupGuarantee, Disabled: len(settings) == 0}
		}
	}
	if a.certifyCtl == nil {
		return Control{}, false
	}
	return *a.certifyCtl, true
}

// Set changes a control of the current scene or its stepper bar. An item
// the keyboard holds is let go first: the change may rerun what it drags.
func (a *App) Set(name, value string) error {
	a.Release()
	if name == CtlReseed {
		if !a.reseed() {
			return format.Errorf("this lesson has no seed")
		}
		return nil
	}
	if name == CtlCertify {
		return a.certified()
	}
	var err error
	if st, ok := a.Scene().(Stepped); ok && IsPlayerControl(name) {
		err = st.Player().Set(name, value)
	} else {
		err = a.Scene().Set(name, value)
	}
	// A type assertion, not errors.As: that would link reflection into
	// every lesson's module (60 KB), and scenes return the error as is.
	if el, ok := err.(ElsewhereError); ok {
		return a.moveTo(el)
	}
	if err == nil {
		a.dirty = true
	}
	return err
}

// certified applies the Certifier's settings, in order, each as the
// reader would. The first it refuses puts the lesson back as it was, and
// says which.
func (a *App) certified() error {
	c, ok := a.Scene().(Certifier)
	switch {
	case !ok:
		return format.Errorf("this lesson has no certified settings to offer")
	case a.computing():
		return format.Errorf("the lesson is still computing the run these settings are for: try again when it is done")
	case !uncertified(a.Guarantee()):
		return format.Errorf("this run needs no certified settings: it is certified, or claims no privacy")
	}
	_, settings, ok := c.Certify()
	if !ok || len(settings) == 0 {
		return format.Errorf("no settings within this lesson's reach certify its run")
	}
	was := a.State()
	for _, s := range settings {
		if err := a.Set(s[0], s[1]); err != nil {
			_ = a.Restore(was)
			return format.Errorf("the certified settings: %s = %s: %v", s[0], s[1], err)
		}
	}
	return nil
}

// lessonKeys are the keys that open lessons 1, 2, …: a keyboard's number
// row, 1…9, 0, then - and = for the eleventh and twelfth.
const lessonKeys = "1234567890-="

// LessonKey is the key that opens lesson i (0-based), from the number
// row: "1"…"9", "0", "-", "="; later lessons have none (the lesson menu
// reaches them).
func LessonKey(i int) string {
	if i < 0 || i >= len(lessonKeys) {
		return ""
	}
	return lessonKeys[i : i+1]
}

// LessonKeysLegend says which keys open the lessons, for n lessons:
// "1–7 lessons", "1–9, 0 lessons", "1–9, 0, -, = lessons".
func LessonKeysLegend(n int) string {
	switch {
	case n <= 9:
		return format.Sprintf("1–%d lessons", n)
	case n == 10:
		return "1–9, 0 lessons"
	case n == 11:
		return "1–9, 0, - lessons"
	case n == 12:
		return "1–9, 0, -, = lessons"
	}
	return "1–9, 0, -, = lessons 1–12"
}

// Key handles a keyboard shortcut (names as in the browser's KeyboardEvent.key:
// " " or "Space", "ArrowLeft", "ArrowRight", "r", "s", "1"…"9", "0", "-", "="; Shift
// held as "Shift+ArrowLeft"); true if it did something. Shortcuts of the
// scene's controls (Control.Key) work too, and the figure's own keys:
// ↑ ↓ choose an item, Enter picks it up and drops it, arrows move it.
func (a *App) Key(k string) bool {
	if k == " " {
		k = "Space"
	}
	if handled, changed := a.figureKey(k); handled {
		return changed
	}
	k = strings.TrimPrefix(k, "Shift+")
	if i := strings.Index(lessonKeys, k); len(k) == 1 && i >= 0 {
		return i < len(a.scenes) && a.Switch(i) == nil
	}
	for _, c := range a.Controls() {
		if c.Key == "" || !strings.EqualFold(c.Key, k) {
			continue
		}
		if !c.Disabled {
			return a.Set(c.Name, "") == nil
		}
		// The stepper waits for a run being computed (End pressed as a
		// lesson opens): the key acts when the run is there.
		if w, ok := a.Scene().(Worker); ok && w.Busy() && IsPlayerControl(c.Name) {
			a.queued = k
			return true
		}
	}
	return false
}

// reseed moves the scene to the next seed.
func (a *App) reseed() bool {
	for _, c := range a.Controls() {
		if c.Name == CtlSeed {
			s, err := strconv.ParseUint(c.Value, 10, 64)
			if err != nil {
				return false
			}
			if err := a.Scene().Set(CtlSeed, strconv.FormatUint(s+1, 10)); err != nil {
				return false
			}
			a.dirty = true
			return true
		}
	}
	return false
}

// Event forwards pointer input to the scene.
func (a *App) Event(ev Event) bool {
	if a.Scene().Pointer(ev) {
		a.dirty = true
		return true
	}
	return false
}

// Tick advances a playing stepper, and a scene's background work, by dt
// seconds.
func (a *App) Tick(dt float64) bool {
	changed := false
	if st, ok := a.Scene().(Stepped); ok {
		play := dt
		if sp := st.Player().Speed(); a.reduced && sp > MaxReducedSpeed {
			play *= MaxReducedSpeed / sp
		}
		changed = st.Player().Tick(play)
	}
	if tk, ok := a.Scene().(Ticker); ok {
		if a.here != nil {
			changed = a.here(tk, dt) || changed
		} else if tk.Tick(dt) {
			changed = true
		}
	}
	if w, ok := a.Scene().(Worker); a.queued != "" && (!ok || !w.Busy()) {
		k := a.queued
		a.queued = ""
		changed = a.Key(k) || changed
	}
	if changed {
		a.dirty = true
	}
	return changed
}

// Busy reports whether the figure is moving on its own: a run playing, or
// a computation under way. Front ends speak the figure's description when
// it stops, not on every frame meanwhile.
func (a *App) Busy() bool {
	if st, ok := a.Scene().(Stepped); ok && st.Player().Playing() {
		return true
	}
	w, ok := a.Scene().(Worker)
	return ok && w.Busy()
}

// computing reports whether the scene is computing a run between frames.
func (a *App) computing() bool {
	w, ok := a.Scene().(Worker)
	return ok && w.Busy()
}

// RemoteKey names the computation under way that another copy of the
// lesson could do for this one (Remote), or is "" when there is none.
func (a *App) RemoteKey() string {
	if r, ok := a.Scene().(Remote); ok && r.Busy() {
		return r.RemoteKey()
	}
	return ""
}

// Hold stops the scene's own work on the computation key while another
// copy does it and Adopt brings its outcome; "" lets the scene compute
// again, as it must when the other copy fails. While settings name another
// computation the hold lapses, and it applies again should they come back
// to key: a front end that holds must see each hold through to a finished
// outcome or to Hold("").
func (a *App) Hold(key string) { a.away, a.here = key, a.tickHere }

// HandOutAfter is how long, in ms of a copy's own slices between frames, a
// computation must have still to go for HandOut to offer it to another
// copy: one nearer its end is done here sooner than another copy restores
// the lesson, computes the run and sends it (BENCHMARKS.md: at DP-SGD's
// defaults a τ change was answered in a median 182 ms, against 291 ms when
// every run that outlasted its first slice was handed out). Zero or less
// offers every computation at once (tests of the hand-out).
var HandOutAfter = 100.0

// handOutLook is how long, in ms of its slices, a computation computes
// here before HandOut judges from its progress how long it has to go.
const handOutLook = 16.0

// HandOut is RemoteKey once the computation under way has computed here
// for handOutLook ms of its slices between frames (Tick) and, judged by
// its progress (the "computing" readout), has more than HandOutAfter ms
// still to go, or shows no progress, or has taken HandOutAfter here
// already (progress that misjudges it, as a sweep whose later points cost
// more, costs at most that); "" before and otherwise. A computation held
// (Hold) is offered at once: the settings came back to it, and this copy
// will not compute it. It is what a front end hands to another copy, and
// when. Without a Clock it is RemoteKey.
func (a *App) HandOut() string {
	if a.here == nil {
		a.here = a.tickHere
	}
	key := a.RemoteKey()
	if Clock == nil || HandOutAfter <= 0 || key == a.young && a.long || key != "" && key == a.away {
		return key
	}
	return ""
}

// tickHere ticks tk unless the computation under way is held (Hold), and
// times the slices it takes here, to judge it long (HandOut).
func (a *App) tickHere(tk Ticker, dt float64) bool {
	key := a.RemoteKey()
	if a.away != "" && a.away == key {
		return false
	}
	if key != a.young {
		a.young, a.spent, a.long = key, 0, false
	}
	if key == "" || Clock == nil {
		return tk.Tick(dt)
	}
	t0 := Clock()
	changed := tk.Tick(dt)
	a.spent += Clock() - t0
	if !a.long && a.spent >= handOutLook {
		f := -1.0
		for _, r := range a.Scene().Readouts() {
			if r.Name == computingName {
				f = r.Value
			}
		}
		a.long = f <= 0 || a.spent >= HandOutAfter || a.spent*(1-f)/f > HandOutAfter
	}
	return changed
}

// Outcome is the scene's computation so far, encoded, for the copy whose
// computation this copy does (Remote.Outcome), and whether it is done;
// nil when the scene computes nothing another copy could take.
func (a *App) Outcome() (data []byte, done bool) {
	if r, ok := a.Scene().(Remote); ok {
		return r.Outcome()
	}
	return nil, false
}

// Adopt takes another copy's outcome of the computation key (Remote.Adopt)
// for the next Frame; a finished one also ends the hold.
func (a *App) Adopt(key string, data []byte, done bool) error {
	r, ok := a.Scene().(Remote)
	if !ok {
		return format.Errorf("the lesson %q computes nothing elsewhere", a.Scene().Info().Name)
	}
	if k := a.RemoteKey(); k != key {
		return format.Errorf("an outcome for another computation (%q, while %q is under way)", key, k)
	}
	if err := r.Adopt(key, data, done); err != nil {
		return err
	}
	if done {
		a.away = ""
	}
	a.dirty = true
	return nil
}

// MaxReducedSpeed is playback's rate, in steps a second, when the reader
// asked for reduced motion: each step stays long enough to read.
const MaxReducedSpeed = 1.0

// ReduceMotion caps playback at MaxReducedSpeed (on) or lets it run at the
// speed slider's rate (off), as the reader's prefers-reduced-motion says.
func (a *App) ReduceMotion(on bool) { a.reduced = on }

// Settle finishes whatever computation the scene has under way, at once
// and here (a hold ends): for an export, or a test, that needs the run the
// settings ask for.
func (a *App) Settle() {
	a.away = "" // computed here, whatever another copy was doing
	if w, ok := a.Scene().(Worker); ok {
		for w.Busy() {
			a.Tick(0)
		}
	}
}

// Invalidate forces the next Frame to redraw (after a backend-side change).
func (a *App) Invalidate() { a.dirty = true }

// Frame returns the current figure for a w × h viewport and whether it
// changed since the last call; scenes redraw only when something changed.
func (a *App) Frame(w, h float64) (*List, bool) {
	if !a.dirty && a.list != nil && w == a.w && h == a.h {
		return a.list, false
	}
	a.w, a.h, a.dirty = w, h, false
	a.list = a.Scene().Draw(w, h)
	a.markSelection(a.list)
	a.drawComputing(a.list)
	return a.list, true
}

// LastFrame returns the list Frame last returned (nil before the first).
func (a *App) LastFrame() *List { return a.list }

// Readouts returns the scene's readouts, led by the stepper status.
func (a *App) Readouts() []Readout {
	var out []Readout
	if st, ok := a.Scene().(Stepped); ok {
		out = append(out, Readout{Name: "status", Label: "step", Text: st.Player().Status()})
	}
	return append(out, a.Scene().Readouts()...)
}

// Guarantee returns the current scene's guarantee.
func (a *App) Guarantee() privacy.Guarantee { return a.Scene().Guarantee() }

// State returns the shareable state: the scene and every non-button control
// value in the order the scene declares them, as a URL fragment
// ("scene=abovethreshold&eps=1&seed=3").
func (a *App) State() string { return a.stateOf(a.Scene().Controls()) }

// stateOf is State for the scene's controls cs, already asked for.
func (a *App) stateOf(cs []Control) string {
	parts := []string{"scene=" + queryEscape(a.Scene().Info().Name)}
	for _, c := range cs {
		if c.Kind != Button {
			parts = append(parts, queryEscape(c.Name)+"="+queryEscape(c.Value))
		}
	}
	return strings.Join(parts, "&")
}

// Restore applies a state written by State (a leading '#' is ignored).
// Settings that fail are skipped and reported together; the others apply,
// so a hand-edited link with one bad value still opens the lesson.
func (a *App) Restore(state string) error {
	v, err := parseQuery(strings.TrimPrefix(state, "#"))
	if err != nil {
		return format.Errorf("the link's settings cannot be read: %v", err)
	}
	var errs []error
	if name := v.vals["scene"]; name != "" {
		if err := a.SwitchTo(name); err != nil {
			errs = append(errs, err)
		}
	}
	// Apply in the scene's declared order, reading the controls again after
	// each setting: later controls may depend on earlier ones (n before m),
	// and a choice may bring its own controls (a mechanism's claimed ε).
	done := map[string]bool{"scene": true}
	for next := true; next; {
		next = false
		for _, c := range a.Scene().Controls() {
			val, ok := v.vals[c.Name]
			if !ok || done[c.Name] || c.Kind == Button {
				continue
			}
			done[c.Name], next = true, true
			if err := a.Set(c.Name, val); err != nil {
				// Another part of the lesson shows it: the whole state goes
				// there (the page opens that part's module with it).
				if _, ok := err.(ElsewhereError); ok {
					return ElsewhereError{State: strings.TrimPrefix(state, "#")}
				}
				errs = append(errs, format.Errorf("%s: %v", c.Name, err))
			}
			break
		}
	}
	for _, k := range v.keys {
		if !done[k] {
			errs = append(errs, format.Errorf("%s: not a setting of this lesson (ignored)", k))
		}
	}
	a.dirty = true
	return errors.Join(errs...)
}

// ExportTrace returns the current run's trace as JSON.
func (a *App) ExportTrace() ([]byte, error) {
	e, ok := a.Scene().(Exporter)
	if !ok || e.Trace() == nil {
		return nil, format.Errorf("the %s lesson has no run to export", a.Scene().Info().Title)
	}
	var buf bytes.Buffer
	err := trace.Encode(&buf, e.Trace())
	return buf.Bytes(), err
}

// ExportTraceOf rebuilds a view from its state and the dataset it showed
// (CSV as ExportCSV writes it; empty when the state alone determines the
// data) and returns its trace as JSON. The browser's lesson engines leave
// JSON out to stay small; a separate export engine holding every lesson
// answers with this, and refuses rather than export another run than the
// one on the page.
func (a *App) ExportTraceOf(state string, csv []byte) ([]byte, error) {
	if err := a.RestoreWith(state, csv); err != nil {
		return nil, err
	}
	if len(csv) > 0 {
		if got, err := a.ExportCSV(); err != nil || !bytes.Equal(got, csv) {
			return nil, format.Errorf("the export could not rebuild the data shown in the %s lesson exactly; download the CSV and run it with the uldp command instead", a.Scene().Info().Title)
		}
	}
	return a.ExportTrace()
}

// RestoreWith applies a state (as Restore, but every setting must apply),
// finishes what it starts computing, and replaces the lesson's users by
// csv, a dataset it exported (none when empty; a lesson that cannot load
// one keeps its own): how a view a student reached by dragging is rebuilt
// elsewhere.
func (a *App) RestoreWith(state string, csv []byte) error {
	if err := a.Restore(state); err != nil {
		return format.Errorf("the lesson's settings could not be restored: %v", err)
	}
	a.Settle()
	l, ok := a.Scene().(DatasetLoader)
	if len(csv) == 0 || !ok {
		return nil
	}
	d, err := dataset.ReadCSV(bytes.NewReader(csv), true)
	if err != nil {
		return format.Errorf("the lesson's dataset could not be read: %v", err)
	}
	if err := l.LoadDataset(d); err != nil {
		return format.Errorf("the lesson's dataset does not fit its settings: %v", err)
	}
	a.dirty = true
	return nil
}

// Exportable reports which downloads the current lesson offers, so front
// ends can grey out the others instead of answering with an error.
func (a *App) Exportable() (trace, csv bool) {
	e, ok := a.Scene().(Exporter)
	return ok && e.Trace() != nil, ok && e.Dataset() != nil
}

// ExportCSV returns the current dataset as CSV.
func (a *App) ExportCSV() ([]byte, error) {
	e, ok := a.Scene().(Exporter)
	var d *dataset.Dataset
	if ok {
		d = e.Dataset()
	}
	if d == nil {
		return nil, format.Errorf("the %s lesson has no dataset to export", a.Scene().Info().Title)
	}
	var buf bytes.Buffer
	err := dataset.WriteCSV(&buf, d)
	return buf.Bytes(), err
}
