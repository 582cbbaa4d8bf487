package viz

import (
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/trace"
)

// EventKind says what an input event is.
type EventKind uint8

// Input events the backends forward.
const (
	PointerDown EventKind = iota + 1
	PointerMove
	PointerUp
	Wheel // Delta > 0 zooms in
)

// Event is one pointer or wheel event in figure pixels. Pointer 0 is the
// mouse; touches are 1, 2, ….
type Event struct {
	Kind    EventKind
	X, Y    float64
	Pointer int
	Delta   float64
	// Target is the item a keyboard's press means (its ID), 0 for a
	// pointer's: where items overlap, List.HitEvent answers it, not the
	// one on top.
	Target int
}

// Info names a scene.
type Info struct {
	// Name is the scene's id in URLs ("#scene=abovethreshold").
	Name string `json:"name"`
	// Title is shown in switchers and window titles.
	Title string `json:"title"`
	// Summary is one sentence on what the scene teaches.
	Summary string `json:"summary"`
}

// ControlKind is the kind of a declared control.
type ControlKind string

// Control kinds. Backends render them natively: HTML inputs in the browser,
// a side panel on the desktop.
const (
	Slider ControlKind = "slider" // numeric, Min..Max, Step (Log: geometric)
	Number ControlKind = "number" // numeric text field
	Toggle ControlKind = "toggle" // "true" / "false"
	Choice ControlKind = "choice" // one of Choices
	Button ControlKind = "button" // Set(name, "") performs it
	// TextField is free text, validated by the scene (e.g. a list of values).
	TextField ControlKind = "text"
)

// Control is one declared input with its current value.
type Control struct {
	Name    string      `json:"name"`
	Label   string      `json:"label"`
	Kind    ControlKind `json:"kind"`
	Value   string      `json:"value"`
	Min     float64     `json:"min,omitempty"`
	Max     float64     `json:"max,omitempty"`
	Step    float64     `json:"step,omitempty"`
	Log     bool        `json:"log,omitempty"`
	Unit    string      `json:"unit,omitempty"`
	Choices []string    `json:"choices,omitempty"`
	Help    string      `json:"help,omitempty"`
	// ChoiceHelp says what each choice is. It is a declaration: a Form's
	// Controls put the chosen one's before Help (so the help describes
	// what is chosen) and leave this nil.
	ChoiceHelp map[string]string `json:"-"`
	// Key is the keyboard shortcut, if any ("Space", "ArrowRight", "r").
	Key string `json:"key,omitempty"`
	// Disabled controls are shown but do nothing now (e.g. step at the end).
	Disabled bool `json:"disabled,omitempty"`
	// Group lays controls out together: "stepper" for the stepper bar,
	// GroupGuarantee for the button beside the guarantee, "" for the
	// scene's own.
	Group string `json:"group,omitempty"`
}

// Readout is a named number with the formula that produced it.
type Readout struct {
	Name    string  `json:"name"`
	Label   string  `json:"label"`
	Value   float64 `json:"value"`
	Text    string  `json:"text"`
	Formula string  `json:"formula,omitempty"`
	Warn    bool    `json:"warn,omitempty"`
}

// Scene is one lesson's interactive figure.
type Scene interface {
	Info() Info
	// Controls declares the scene's inputs with their current values.
	Controls() []Control
	// Set changes one control; the error says what is wrong with the value
	// and the scene stays as it was.
	Set(name, value string) error
	Readouts() []Readout
	// Guarantee is what the scene's current run certifies.
	Guarantee() privacy.Guarantee
	// Pointer handles an input event in the figure; true if the state changed.
	Pointer(ev Event) bool
	// Draw returns the figure for a w × h pixel viewport.
	Draw(w, h float64) *List
}

// Stepped is a scene that runs an algorithm the stepper bar walks through.
type Stepped interface {
	Scene
	Player() *Player
}

// Ticker is a scene with background work (a Monte Carlo audit, say) that
// advances a slice at a time on every frame.
type Ticker interface {
	// Tick advances by about dt seconds of frame time; true if the figure
	// changed.
	Tick(dt float64) bool
}

// Worker is a Ticker whose ticks finish computations a change started (a
// run too long to do at once); while Busy, it shows its previous run, and
// the App lays a banner over the figure with its "computing" readout.
type Worker interface {
	Ticker
	Busy() bool
}

// Live is a Worker whose figure shows its computation as it goes (points
// appear as they are done) and says so itself: no banner covers it.
type Live interface {
	Worker
	Live()
}

// Remote is a Worker whose computation another copy of the same lesson —
// the page's Web Worker, on another core — can do while this copy shows
// what it has: the page's thread then computes nothing between frames.
// The computation must be a function of what RemoteKey names, so that the
// other copy, restored to the same state, computes the same outcome.
type Remote interface {
	Worker
	// RemoteKey names the computation under way and every input it
	// depends on, or is "" when none is under way.
	RemoteKey() string
	// Outcome is what the computation under way has found so far,
	// encoded, and whether it has finished. A finished computation too
	// large for one message may come in parts, one per call, in order,
	// done with the last: then each call moves on, and the caller sends
	// every outcome it is given.
	Outcome() (data []byte, done bool)
	// Adopt takes an outcome another copy computed for key, in place of
	// computing it, in the order Outcome gave them: a partial one shows
	// progress (or is a part), a finished one ends the computation. It
	// fails when key is not the computation under way or data do not
	// decode.
	Adopt(key string, data []byte, done bool) error
}

// Certifier is a lesson whose run may not be certified where it opens,
// on purpose, and that knows the nearest settings at which it is. The app
// offers them as one button beside the guarantee (CtlCertify), its help
// the lesson's one line saying why.
type Certifier interface {
	// Certify, asked only while the run claims privacy its proof does not
	// cover, returns one line saying why the lesson runs so and what the
	// settings change, and the settings (control, value), applied in
	// order. No settings: the line alone, where none within the lesson's
	// reach certify. ok is false when the lesson has nothing to say.
	Certify() (why string, settings [][2]string, ok bool)
}

// Stopper is a scene that can end the work it has under way: App.Reopen
// stops a scene it drops, or the work's coroutine would linger.
type Stopper interface {
	Stop()
}

// Exporter is a scene whose run and data can be downloaded (the export
// buttons: JSON of the trace, CSV of the dataset). Dataset returns the
// scene's own data, nil if it has none: the caller reads it only (clone it
// to change it). The page asks for it after every change, and a copy of
// 100,000 users took 96 ms of a frame in the browser.
type Exporter interface {
	Trace() *trace.Trace
	Dataset() *dataset.Dataset
}

// DatasetLoader is an Exporter whose data can be replaced by a dataset it
// exported, rerunning with the same seed: how a run whose users were dragged
// is rebuilt elsewhere (the browser's trace export runs in its own module).
type DatasetLoader interface {
	Exporter
	// LoadDataset replaces the data; the error says why d does not fit the
	// lesson's current settings (another n, say) and leaves it unchanged.
	LoadDataset(d *dataset.Dataset) error
}

// ElsewhereError is what a scene's Set answers for a setting another
// scene of the same lesson shows (a lesson too large for one browser
// module is split into scenes, each its own module). State is the lesson's
// link with the setting: the page opens the module that shows it, the
// desktop's app the scene it was given for it (App.AddParts).
type ElsewhereError struct{ State string }

// Error says which part of the lesson shows the setting.
func (e ElsewhereError) Error() string {
	return "this setting is shown by another part of the lesson (" + e.State + ")"
}
