package ebitenview

import (
	"bytes"
	"fmt"
	"hash/fnv"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/inpututil"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/classroom"
)

// Game is the ebiten.Game that shows a viz.App: the figure on the left, the
// side panel on the right.
type Game struct {
	app   *viz.App
	paint *painter
	// ShotDir is where P saves screenshots (PNG) and the view's state.
	ShotDir string
	// Log, when set, receives one line per input the game acts on, in the
	// window's pixels: "size W H" when the window is first drawn at a size,
	// "key NAME" and "release NAME", "down X Y", "move X Y" (when the pointer
	// moved while pressed), "up X Y", "click X Y" (in the panel) and
	// "shot PATH". Scripts driving the window wait for these lines instead of
	// guessing how long a frame takes.
	Log io.Writer
	// Text returns the prose of the lesson called name, for H (the lesson
	// list's lessons.Text); without it H says there is none.
	Text func(name string) (string, error)
	// Copy, when set, makes a fresh copy of the app, every lesson at its
	// defaults. The runs a lesson can have computed elsewhere (viz.Remote:
	// DP-SGD's, the rates explorer's sweep, PVMW's training) are then
	// computed by such a copy on a goroutine of its own, as the browser's
	// compute worker does, and the window's ticks stay short. Without it,
	// they are computed in the window, a slice per tick. Set it before the
	// first Update.
	Copy func() *viz.App

	w, h      int
	figure    *ebiten.Image
	panel     *ebiten.Image
	panelHash uint64 // of what the panel image shows
	scroll    int
	content   int // the panel's height unscrolled
	widgets   []widget
	read      reader

	dragging bool // mouse drag in the figure
	lastX    int  // pointer position at the last logged move
	lastY    int
	touches  map[int]bool // touch ids dragging in the figure
	slider   string       // slider being dragged in the panel
	editing  string       // field being typed into
	edit     string
	msg      note
	// words: the figure's description shown at the panel's top (key D).
	words    bool
	msgUntil time.Time
	msgFor   string // the lesson the message is about
	shots    int
	shoot    bool
	ex       *exerciseView // exercise mode, when on
	comp     *computer     // computes with Copy, once there is one
}

// New returns a game showing app. It keeps the screen between frames
// (ebiten.SetScreenClearedEveryFrame(false)) so that frames in which nothing
// changed cost nothing: an idle lesson leaves the CPU alone.
func New(app *viz.App) *Game {
	ebiten.SetScreenClearedEveryFrame(false)
	// Long runs are computed a slice per frame, timed by this clock.
	start := time.Now()
	viz.Clock = func() float64 { return float64(time.Since(start)) / 1e6 }
	return &Game{app: app, paint: newPainter(), ShotDir: ".", touches: map[int]bool{}}
}

func (g *Game) current() int {
	name := g.app.Scene().Info().Name
	for i, s := range g.app.Scenes() {
		if s.Name == name {
			return i
		}
	}
	return 0
}

// report shows an error in the panel for a few seconds.
func (g *Game) report(err error) {
	if err != nil {
		g.say(note{text: err.Error(), err: true}, 8*time.Second)
	}
}

// say shows a message in the panel for d, or until the lesson changes.
func (g *Game) say(n note, d time.Duration) {
	g.msg, g.msgUntil, g.msgFor = n, time.Now().Add(d), g.app.Scene().Info().Name
}

// logf writes one line to Log, if set.
func (g *Game) logf(format string, args ...any) {
	if g.Log != nil {
		fmt.Fprintf(g.Log, format+"\n", args...)
	}
}

// Exercises puts the game in exercise mode: s's open exercise above the
// lesson's controls, its lesson opened as the exercise starts.
// Set Log first: opening an exercise logs "exercise N of M: R right, A
// answered", and each graded answer "answer ID right" (or wrong).
func (g *Game) Exercises(s *classroom.Session) {
	g.ex = &exerciseView{s: s}
	g.exOpen()
}

// Layout makes the game's screen the window's size: the figure reflows.
func (g *Game) Layout(ow, oh int) (int, int) { return ow, oh }

// Update turns this tick's input into app calls.
func (g *Game) Update() error {
	defer viz.BeginCall()() // the tick and the input's changes share a frame's slice
	if g.msg.text != "" && (time.Now().After(g.msgUntil) || g.msgFor != g.app.Scene().Info().Name) {
		g.msg = note{}
	}
	fig := FigureRect(g.w, g.h)
	if g.ex != nil {
		g.ex.editing = g.editing == exField
	}
	words := ""
	if g.words {
		words = g.app.Describe()
	}
	g.widgets, g.content = layout(g.app, fig.Max.X, g.w-fig.Max.X, g.scroll, g.msg, words, g.read.shown(), g.paint.width, g.ex)
	if g.comp == nil && g.Copy != nil {
		g.comp = newComputer(g.Copy)
	}
	if g.comp != nil {
		g.comp.step(g.app)
	}
	g.app.Tick(1 / float64(ebiten.TPS()))
	g.keys()
	g.mouse(fig)
	g.touch(fig)
	return nil
}

var keyNames = map[ebiten.Key]string{
	ebiten.KeySpace: "Space", ebiten.KeyArrowLeft: "ArrowLeft", ebiten.KeyArrowRight: "ArrowRight",
	ebiten.KeyArrowUp: "ArrowUp", ebiten.KeyArrowDown: "ArrowDown",
	ebiten.KeyEnter: "Enter", ebiten.KeyNumpadEnter: "Enter", ebiten.KeyEscape: "Escape",
	ebiten.KeyEnd: "End", ebiten.KeyHome: "Home",
	ebiten.KeyBracketLeft: "[", ebiten.KeyBracketRight: "]",
	ebiten.KeyMinus: "-", ebiten.KeyEqual: "=", // lessons 11 and 12
}

func (g *Game) keys() {
	if g.editing != "" {
		g.typeInto()
		return
	}
	for _, k := range inpututil.AppendJustPressedKeys(nil) {
		name, ok := keyName(k)
		if !ok {
			continue
		}
		g.logf("key %s", name)
		if g.read.open && (name == "ArrowUp" || name == "ArrowDown" || name == "Escape" || name == "Enter") {
			continue // the text's (scrolling and closing, below), or nothing
		}
		if strings.HasPrefix(name, "Arrow") && (ebiten.IsKeyPressed(ebiten.KeyShiftLeft) || ebiten.IsKeyPressed(ebiten.KeyShiftRight)) {
			name = "Shift+" + name
		}
		switch name {
		case shotKey:
			g.shoot = true
		case textKey:
			g.showText(false)
		case wordsKey:
			g.words = !g.words
		case "[", "]":
			if g.ex != nil {
				g.exAct(map[string]string{"[": "prev", "]": "next"}[name])
			}
		default:
			g.app.Key(name)
		}
	}
	if g.read.open {
		switch {
		case inpututil.IsKeyJustPressed(ebiten.KeyEscape):
			g.closeText()
		case inpututil.IsKeyJustPressed(ebiten.KeyArrowDown), inpututil.IsKeyJustPressed(ebiten.KeyPageDown):
			g.read.scroll += 120
		case inpututil.IsKeyJustPressed(ebiten.KeyArrowUp), inpututil.IsKeyJustPressed(ebiten.KeyPageUp):
			g.read.scroll -= 120
		}
	}
	if g.Log != nil {
		for _, k := range inpututil.AppendJustReleasedKeys(nil) {
			if name, ok := keyName(k); ok {
				g.logf("release %s", name)
			}
		}
	}
}

// showText shows the lesson's text or the errata in the figure's place; a
// second press of the same shows the figure again.
func (g *Game) showText(errata bool) {
	if g.read.open && g.read.errata == errata {
		g.closeText()
		return
	}
	g.read.open, g.read.errata, g.read.scroll, g.read.drawn = true, errata, 0, ""
	g.app.Release() // the figure is hidden: an item held there is let go
}

// closeText shows the figure again.
func (g *Game) closeText() {
	g.read.open, g.read.drawn = false, ""
	g.app.Invalidate()
}

// The desktop's own keys, before any lesson's: a lesson must not use them.
const (
	shotKey  = "p" // save a screenshot
	textKey  = "h" // the lesson's text in the figure's place
	wordsKey = "d" // the figure's description in the panel
)

// keyName is the app's name of a key the game handles.
func keyName(k ebiten.Key) (string, bool) {
	if name, ok := keyNames[k]; ok {
		return name, true
	}
	switch {
	case k >= ebiten.KeyA && k <= ebiten.KeyZ:
		return strings.ToLower(k.String()), true
	case k >= ebiten.KeyDigit0 && k <= ebiten.KeyDigit9:
		return string(rune('0' + k - ebiten.KeyDigit0)), true
	}
	return "", false
}

// typeInto edits the focused text field: Enter commits, Escape cancels.
func (g *Game) typeInto() {
	g.edit += string(ebiten.AppendInputChars(nil))
	if inpututil.IsKeyJustPressed(ebiten.KeyBackspace) && len(g.edit) > 0 {
		r := []rune(g.edit)
		g.edit = string(r[:len(r)-1])
	}
	switch {
	case inpututil.IsKeyJustPressed(ebiten.KeyEnter) || inpututil.IsKeyJustPressed(ebiten.KeyNumpadEnter):
		if g.editing == exField {
			g.exType(g.edit)
		} else {
			g.report(g.app.Set(g.editing, strings.TrimSpace(g.edit)))
		}
		g.editing = ""
	case inpututil.IsKeyJustPressed(ebiten.KeyEscape):
		g.editing = ""
	}
}

func (g *Game) mouse(fig image.Rectangle) {
	x, y := ebiten.CursorPosition()
	in := image.Pt(x, y).In(fig)
	ev := viz.Event{X: float64(x - fig.Min.X), Y: float64(y - fig.Min.Y)}
	switch {
	case inpututil.IsMouseButtonJustPressed(ebiten.MouseButtonLeft):
		g.lastX, g.lastY = x, y
		if in && g.read.open {
			g.logf("down %d %d", x, y)
		} else if in {
			g.logf("down %d %d", x, y)
			g.editing = ""
			ev.Kind = viz.PointerDown
			g.dragging = true
			g.app.Event(ev)
		} else {
			g.logf("click %d %d", x, y)
			g.click(x, y)
		}
	case inpututil.IsMouseButtonJustReleased(ebiten.MouseButtonLeft):
		g.logf("up %d %d", x, y)
		if g.dragging {
			ev.Kind = viz.PointerUp
			g.app.Event(ev)
		}
		g.dragging, g.slider = false, ""
	case ebiten.IsMouseButtonPressed(ebiten.MouseButtonLeft):
		if x != g.lastX || y != g.lastY {
			g.lastX, g.lastY = x, y
			g.logf("move %d %d", x, y)
		}
		if g.dragging {
			ev.Kind = viz.PointerMove
			g.app.Event(ev)
		} else if g.slider != "" {
			g.dragSlider(x)
		}
	}
	if _, dy := ebiten.Wheel(); dy != 0 {
		switch {
		case in && g.read.open:
			g.read.scroll -= int(dy * 40)
		case in:
			ev.Kind, ev.Delta = viz.Wheel, dy
			g.app.Event(ev)
		default:
			g.scroll = max(0, min(g.scroll-int(dy*30), g.content-g.h+8))
		}
	}
}

func (g *Game) touch(fig image.Rectangle) {
	for _, id := range inpututil.AppendJustPressedTouchIDs(nil) {
		x, y := ebiten.TouchPosition(id)
		if image.Pt(x, y).In(fig) {
			g.touches[int(id)] = true
			g.app.Event(viz.Event{Kind: viz.PointerDown, X: float64(x - fig.Min.X), Y: float64(y - fig.Min.Y), Pointer: int(id) + 1})
		} else {
			g.click(x, y)
		}
	}
	for id := range g.touches {
		tid := ebiten.TouchID(id)
		kind := viz.PointerMove
		x, y := ebiten.TouchPosition(tid)
		if inpututil.IsTouchJustReleased(tid) {
			kind = viz.PointerUp
			x, y = inpututil.TouchPositionInPreviousTick(tid)
			delete(g.touches, id)
		}
		g.app.Event(viz.Event{Kind: kind, X: float64(x - fig.Min.X), Y: float64(y - fig.Min.Y), Pointer: id + 1})
	}
}

// click handles a press in the panel.
func (g *Game) click(x, y int) {
	g.editing = ""
	for _, w := range g.widgets {
		if !image.Pt(x, y).In(w.r) {
			continue
		}
		switch w.kind {
		case "read":
			g.showText(false)
		case "errata":
			g.showText(true)
		case "tab":
			g.report(g.app.Switch(w.scene))
		case "button":
			if !w.ctl.Disabled {
				g.report(g.app.Set(w.ctl.Name, ""))
			}
		case "slider":
			if image.Pt(x, y).In(track(w.r).Inset(-8)) {
				g.slider = w.ctl.Name
				g.dragSlider(x)
			}
		case "choice":
			g.report(g.app.Set(w.ctl.Name, cycle(w.ctl, x < (w.r.Min.X+labelW+w.r.Max.X)/2)))
		case "toggle":
			g.report(g.app.Set(w.ctl.Name, fmt.Sprint(w.ctl.Value != "true")))
		case "field":
			g.editing, g.edit = w.ctl.Name, w.ctl.Value
		case "exfield":
			g.editing, g.edit = exField, g.ex.typed
		case "exbutton":
			g.exAct(w.act)
		}
		return
	}
}

func (g *Game) dragSlider(x int) {
	for _, w := range g.widgets {
		if w.kind == "slider" && w.ctl.Name == g.slider {
			v := sliderValue(w.ctl, track(w.r), x)
			g.report(g.app.Set(w.ctl.Name, viz.FormatNumber(v)))
			return
		}
	}
}

// cycle returns the previous or next choice.
func cycle(c viz.Control, back bool) string {
	for i, ch := range c.Choices {
		if ch == c.Value {
			if back {
				return c.Choices[(i+len(c.Choices)-1)%len(c.Choices)]
			}
			return c.Choices[(i+1)%len(c.Choices)]
		}
	}
	return c.Choices[0]
}

// Draw paints the figure (re-rendered only when the app reports a change)
// and the panel.
func (g *Game) Draw(screen *ebiten.Image) {
	b := screen.Bounds()
	changed := false
	if b.Dx() != g.w || b.Dy() != g.h {
		g.w, g.h = b.Dx(), b.Dy()
		g.figure, g.panel = nil, nil
		defer g.logf("size %d %d", g.w, g.h)
	}
	fig := FigureRect(g.w, g.h)
	if g.figure == nil {
		g.figure = ebiten.NewImage(fig.Dx(), fig.Dy())
		g.app.Invalidate()
	}
	if g.read.open {
		g.read.layout(g.app.Scene().Info().Name, g.Text, fig.Dx(), g.paint.width)
		changed = g.read.draw(g.figure, g.paint)
	} else if l, redraw := g.app.Frame(float64(fig.Dx()), float64(fig.Dy())); redraw {
		g.figure.Fill(rgba(viz.Paper, 1))
		g.paint.paint(g.figure, l)
		changed = true
	}
	// The panel is text-heavy: redraw it only when what it shows changed.
	if g.panel == nil {
		g.panel = ebiten.NewImage(g.w-fig.Max.X, g.h)
		g.panelHash = 0
	}
	if h := g.signature(); h != g.panelHash {
		g.panel.Fill(rgba(viz.Paper, 1))
		g.drawPanel(g.panel, g.widgets, -fig.Max.X)
		g.panelHash = h
		changed = true
	}
	if changed || g.shoot {
		screen.DrawImage(g.figure, nil)
		op := &ebiten.DrawImageOptions{}
		op.GeoM.Translate(float64(fig.Max.X), 0)
		screen.DrawImage(g.panel, op)
	}
	if g.shoot {
		g.shoot = false
		g.report(g.screenshot(screen))
	}
}

// signature hashes everything the panel draws.
func (g *Game) signature() uint64 {
	h := fnv.New64a()
	for _, w := range g.widgets {
		fmt.Fprint(h, w.r, w.kind, w.ctl.Label, w.ctl.Value, w.ctl.Disabled, w.scene, w.text, w.col, w.act)
	}
	fmt.Fprint(h, g.editing, g.edit, g.current(), g.content-g.scroll > g.h)
	return h.Sum64() | 1 // never 0, the "nothing drawn" value
}

// screenshot saves the window as PNG, with the view's shareable state in a
// .state file beside it.
func (g *Game) screenshot(screen *ebiten.Image) error {
	b := screen.Bounds()
	img := image.NewRGBA(b)
	screen.ReadPixels(img.Pix)
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return err
	}
	g.shots++
	base := filepath.Join(g.ShotDir, fmt.Sprintf("uldp-%s-%d", g.app.Scene().Info().Name, g.shots))
	if err := os.WriteFile(base+".png", buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("screenshot: %v", err)
	}
	if err := os.WriteFile(base+".state", []byte(g.app.State()+"\n"), 0o644); err != nil {
		return fmt.Errorf("screenshot: %v", err)
	}
	g.say(note{text: "saved " + base + ".png"}, 4*time.Second)
	g.logf("shot %s", base)
	return nil
}
