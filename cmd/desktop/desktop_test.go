package main

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/classroom"
	"github.com/uldplab/uldp/viz/ebitenview"
	"github.com/uldplab/uldp/viz/lessons"
	"github.com/uldplab/uldp/viz/lessons/abovethreshold"
	"github.com/uldplab/uldp/viz/lessons/auditlab"
	"github.com/uldplab/uldp/viz/lessons/outlieriterates"
	"github.com/uldplab/uldp/viz/lessons/robustsgd"
	"github.com/uldplab/uldp/viz/lessons/userlevel"
)

// The desktop app in a real window: start it under X (make test runs this
// package inside xvfb-run), drive every lesson with real pointer and key
// events from xdotool, and check the screenshots the app saves on P.
//
// Unless -short, every core is kept busy beside it, as on a loaded CI
// machine: the test waits for what the app reports, never for a fixed
// time, so load may slow it down but must not fail it. One walk, not a
// quiet one and a loaded one: the loaded walk asserts all the quiet one
// did, and on CI the quiet one was never quiet (the other packages' tests
// run beside it), while its minute and more held up the whole suite.
func TestDesktopLessons(t *testing.T) {
	if !testing.Short() {
		burnEveryCore(t)
	}
	desktopLessons(t)
}

// burnEveryCore keeps every core busy until the test ends.
func burnEveryCore(t *testing.T) {
	for range runtime.NumCPU() {
		burner := exec.Command("sh", "-c", "while :; do :; done")
		ownGroup(burner)
		if err := burner.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { killGroup(burner); burner.Wait() })
	}
}

// build skips the test without an X display (failing it on CI), builds the
// app, and returns it and the directory for its screenshots.
func build(t *testing.T) (bin, shots string) {
	if os.Getenv("DISPLAY") == "" || exec.Command("xdotool", "version").Run() != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI needs a display and xdotool for the desktop test: run it through make test (xvfb-run)")
		}
		t.Skip("needs an X display and xdotool; make test runs this under xvfb-run")
	}
	dir := t.TempDir()
	bin = filepath.Join(dir, "desktop")
	cmd := exec.Command("go", "build", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// ULDP_DESKTOP_SHOTS keeps the screenshots to look at.
	shots = cmp.Or(os.Getenv("ULDP_DESKTOP_SHOTS"), filepath.Join(dir, "shots"))
	os.MkdirAll(shots, 0o755)
	return bin, shots
}

func desktopLessons(t *testing.T) {
	bin, shots := build(t)
	d, quit := launch(t, bin, shots)
	defer quit()
	fig := ebitenview.FigureRect(d.w, d.h)

	// Lesson 1: drag user 20 by its mean (drawn last, so no other user's
	// mean covers it); the figure changes around it.
	play := userlevel.New()
	at := d.locate(viz.NewApp(play), 1+20*10+19)
	before := d.shot("user-level")
	d.drag(at, 60, -40)
	after := d.shot("user-level")
	if !differs(before.img, after.img, image.Rect(int(at.X)-15, int(at.Y)-15, int(at.X)+15, int(at.Y)+15)) {
		t.Error("lesson 1: dragging user 20 did not change the figure where it was")
	}

	// Lesson 3 by its number key: step with the arrow keys, then drag bar 2.
	d.key("3")
	stepped := d.shot("abovethreshold")
	for range 3 {
		d.key("Right")
	}
	moved := d.shot("abovethreshold")
	if !differs(stepped.img, moved.img, fig) {
		t.Error("lesson 3: three steps did not change the figure")
	}
	// The value axis depends on what is revealed: step the reference too.
	ref := viz.NewApp(abovethreshold.New())
	for range 3 {
		ref.Key("ArrowRight")
	}
	bar := d.locate(ref, 2)
	d.drag(bar, 0, -64)
	dragged := d.shot("abovethreshold")
	q := func(state string) []string {
		v, err := url.ParseQuery(strings.TrimSpace(state))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(v.Get("queries"), ",")
	}
	q0, q1 := q(moved.state), q(dragged.state)
	for i := range q0 {
		if changed := q0[i] != q1[i]; changed != (i == 1) {
			t.Errorf("lesson 3: query %d changed = %v (%s → %s)", i+1, changed, q0[i], q1[i])
		}
	}
	if a, b := mustFloat(t, q0[1]), mustFloat(t, q1[1]); !(b > a) {
		t.Errorf("lesson 3: dragging bar 2 up lowered it: %v → %v", a, b)
	}

	// Lessons 2, 4, 5, 6 and 7 draw.
	d.key("2")
	cal := d.shot("calibration")
	d.key("4")
	d.key("End")
	stab := d.shot("stability")
	d.key("5")
	d.key("End")
	orme := d.shot("outlier-removal")
	d.key("6")
	d.key("End")
	sgd := d.shot("dp-sgd")
	d.key("7")
	d.key("End")
	phased := d.shot("phased-erm")
	// H shows the lesson's text in the figure's place; H again, the figure
	// as it was.
	d.key("h")
	if text := d.shot("phased-erm"); !differs(phased.img, text.img, fig) || colours(text.img) < 4 {
		t.Error("lesson 7: H did not show the lesson's text")
	}
	d.key("h")
	if back := d.shot("phased-erm"); differs(phased.img, back.img, fig) {
		t.Error("lesson 7: H twice did not bring the figure back as it was")
	}
	// Lesson 8: M starts the Monte Carlo audit, sampled between frames;
	// the verdict line under the profile appears when it is done.
	d.key("8")
	opened := d.shot("audit")
	user := d.locate(viz.NewApp(auditlab.New()), 1000+1+2) // B's user 3
	d.drag(user, 80, 0)
	lab := d.shot("audit")
	if !differs(opened.img, lab.img, image.Rect(int(user.X)-10, int(user.Y)-10, int(user.X)+10, int(user.Y)+10)) {
		t.Error("lesson 8: dragging B's user 3 did not move it")
	}
	d.key("m")
	foot := image.Rect(fig.Min.X, fig.Max.Y-120, fig.Max.X, fig.Max.Y)
	audited := d.shot("audit")
	for deadline := time.Now().Add(waitFor); !differs(lab.img, audited.img, foot); audited = d.shot("audit") {
		if time.Now().After(deadline) {
			t.Fatalf("lesson 8: M did not run the Monte Carlo audit (the figure's foot is unchanged after %v)", waitFor)
		}
	}
	// Lesson 9: its first frame, then its last step; dragging a user of
	// the last batch moves it.
	d.key("9")
	robustOpen := d.shot("robust-sgd")
	d.key("End")
	robustEnd := d.shot("robust-sgd")
	if !differs(robustOpen.img, robustEnd.img, fig) {
		t.Error("lesson 9: End did not change the figure")
	}
	ref9 := viz.NewApp(robustsgd.New())
	ref9.Key("End")
	l9, _ := ref9.Frame(float64(fig.Dx()), float64(fig.Dy()))
	id := 0
	for i := 1; i <= 1200 && id == 0; i++ {
		if _, ok := l9.Locate(i); ok {
			id = i
		}
	}
	at9 := d.locate(ref9, id)
	d.drag(at9, 60, 0)
	robustDragged := d.shot("robust-sgd")
	if !differs(robustEnd.img, robustDragged.img, image.Rect(int(at9.X)-8, int(at9.Y)-8, int(at9.X)+8, int(at9.Y)+8)) {
		t.Errorf("lesson 9: dragging user %d did not move it", id)
	}
	// Lesson 10 by key 0, the number row's tenth: its first frame, its
	// last step; dragging a far user (drawn grey then) moves its items.
	d.key("0")
	oirOpen := d.shot("outlier-iterates")
	d.key("End")
	oirEnd := d.shot("outlier-iterates")
	if !differs(oirOpen.img, oirEnd.img, fig) {
		t.Error("lesson 10: End did not change the figure")
	}
	// End again changes nothing: the first press reached the last step.
	// (Lesson 10 computes its run as it opens, not between frames, so its
	// End cannot wait; lesson 12's below does.)
	d.key("End")
	if again := d.shot("outlier-iterates"); differs(oirEnd.img, again.img, fig) {
		t.Error("lesson 10: End pressed as it opened stopped short of the last step")
	}
	ref10 := viz.NewApp(outlieriterates.New())
	ref10.Key("End")
	at10 := d.locate(ref10, 1) // user 1's first item
	d.drag(at10, 60, -40)
	oirDragged := d.shot("outlier-iterates")
	if !differs(oirEnd.img, oirDragged.img, image.Rect(int(at10.X)-8, int(at10.Y)-8, int(at10.X)+8, int(at10.Y)+8)) {
		t.Error("lesson 10: dragging user 1 did not move it")
	}
	for name, s := range map[string]screenshot{"lesson 1": after, "lesson 2": cal, "lesson 3": dragged, "lesson 4": stab, "lesson 5": orme, "lesson 6": sgd, "lesson 7": phased, "lesson 8": audited, "lesson 9": robustEnd, "lesson 10": oirEnd} {
		if n := colours(s.img); n < 8 {
			t.Errorf("%s: screenshot has only %d distinct colours", name, n)
		}
	}
	quit()

	// The audit lab on robust SGD, opened by a link: the far-user pair,
	// where only sampling catches the plain mean; M samples it.
	const link = "scene=audit&mech=robust-sgd&pair=far-user"
	d, quit = launch(t, bin, subdir(shots, "lab"), "-state", link)
	defer quit()
	rsgd := d.shot("audit")
	if v, err := url.ParseQuery(strings.TrimSpace(rsgd.state)); err != nil || v.Get("mech") != "robust-sgd" || v.Get("pair") != "far-user" {
		t.Fatalf("the link %q opened the lab at %q", link, rsgd.state)
	}
	if n := colours(rsgd.img); n < 8 {
		t.Errorf("the lab on robust SGD: screenshot has only %d distinct colours", n)
	}
	d.key("m")
	sampled := d.shot("audit")
	for deadline := time.Now().Add(waitFor); !differs(rsgd.img, sampled.img, foot); sampled = d.shot("audit") {
		if time.Now().After(deadline) {
			t.Fatalf("the lab on robust SGD: M did not run the Monte Carlo audit (the figure's foot is unchanged after %v)", waitFor)
		}
	}
	quit()

	// Lesson 10's accelerated variant, opened by a link: its first step
	// draws the step's gradients inset and its check.
	const accel = "scene=outlier-iterates&algo=accelerated&mode=teaching&preset=crowd"
	d, quit = launch(t, bin, subdir(shots, "accel"), "-state", accel)
	defer quit()
	opened10 := d.shot("outlier-iterates")
	for range 4 {
		d.key("Right")
	}
	stepped10 := d.shot("outlier-iterates")
	if v, err := url.ParseQuery(strings.TrimSpace(stepped10.state)); err != nil || v.Get("algo") != "accelerated" {
		t.Fatalf("the link %q opened lesson 10 at %q", accel, stepped10.state)
	}
	if !differs(opened10.img, stepped10.img, fig) || colours(stepped10.img) < 8 {
		t.Error("lesson 10, accelerated: four steps did not draw the step's gradients")
	}
	quit()

	// The audit lab's second part (a module of its own in the browser),
	// opened by a link: the desktop shows it in the same lesson.
	const labPart = "scene=audit&mech=outlier-iterate-removal&pair=far-member&mutant=keep-all"
	d, quit = launch(t, bin, subdir(shots, "phased"), "-state", labPart)
	defer quit()
	lab2 := d.shot("audit")
	if v, err := url.ParseQuery(strings.TrimSpace(lab2.state)); err != nil || v.Get("mech") != "outlier-iterate-removal" || v.Get("mutant") != "keep-all" {
		t.Fatalf("the link %q opened the lab at %q", labPart, lab2.state)
	}
	if n := colours(lab2.img); n < 6 {
		t.Errorf("the lab's phased part: screenshot has only %d distinct colours", n)
	}
	quit()

	// Lesson 11 by a link: its sweep of simulated runs starts on the first
	// tick, on the window's thread (started before the window, it crashed
	// the app: a coroutine must resume on the thread that made it).
	d, quit = launch(t, bin, subdir(shots, "rates"), "-state", "scene=rates&axis=m")
	defer quit()
	rates := d.shot("rates")
	if v, err := url.ParseQuery(strings.TrimSpace(rates.state)); err != nil || v.Get("axis") != "m" {
		t.Errorf("the link opened the rates explorer at %q", rates.state)
	}
	if n := colours(rates.img); n < 8 {
		t.Errorf("the rates explorer: screenshot has only %d distinct colours", n)
	}
	quit()

	// Lesson 12 by a link, with an example's value changed: its run, too,
	// starts on the first tick and computes between frames. End, pressed
	// at once, while the run computes, waits for the run and then steps to
	// the last query.
	const semi = "scene=semi-sensitive&moved=1=5"
	d, quit = launch(t, bin, subdir(shots, "semi-sensitive"), "-state", semi)
	defer quit()
	fig12 := ebitenview.FigureRect(d.w, d.h)
	d.key("End")
	// While it computes the figure is one line of grey text (no hued
	// pixel) under the banner that says so, whose bar is blue: below the
	// banner's band, the run's panels bring the palette's hues, about 370
	// of the sampled pixels before the first query (the true values'
	// outlines and the ledger), and more with the last query's tests.
	below := fig12
	below.Min.Y += 60
	end12 := d.shot("semi-sensitive")
	for deadline := time.Now().Add(waitFor); hued(end12.img, below) < 200; end12 = d.shot("semi-sensitive") {
		if time.Now().After(deadline) {
			t.Fatalf("lesson 12: the run did not finish within %v", waitFor)
		}
	}
	if v, err := url.ParseQuery(strings.TrimSpace(end12.state)); err != nil || v.Get("moved") != "1=5" {
		t.Errorf("the link %q opened lesson 12 at %q", semi, end12.state)
	}
	// Reset (R) shows the run before its first query; End again changes
	// nothing, so the press made as the lesson opened reached the end.
	d.key("r")
	first12 := d.shot("semi-sensitive")
	if !differs(first12.img, end12.img, fig12) || colours(end12.img) < 8 {
		t.Error("lesson 12: End pressed as it opened did not draw the last query's tests and the filled ledger")
	}
	d.key("End")
	if again := d.shot("semi-sensitive"); differs(end12.img, again.img, fig12) {
		t.Error("lesson 12: End pressed as it opened stopped short of the last query")
	}
}

// Exercise mode: a student answers one exercise right (typing a number)
// and one wrong (clicking a choice); the hand-in written after each resumes
// where they stopped with the same score, and the teacher grades it the same.
func TestDesktopExercises(t *testing.T) {
	bin, shots := build(t)
	shots = subdir(shots, "exercises")
	p, err := exercise.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	key, err := p.For("Ada").Key(classroom.Lab{}) // her own numbers
	if err != nil {
		t.Fatal(err)
	}
	handin := filepath.Join(t.TempDir(), "handin.json")
	d, quit := launch(t, bin, shots, "-exercises", "builtin", "-handin", handin, "-student", "Ada")
	defer quit()
	if want := fmt.Sprintf("exercise 1 of %d: 0 right, 0 answered", len(p.Exercises)); !slices.Contains(d.early, want) {
		t.Errorf("the app opened with %q, want %q", d.early, want)
	}
	// Where the panel shows a control, as the app lays it out: a session of
	// its own at the same exercise, on a fresh app.
	at := func(current int, act string) {
		t.Helper()
		s, err := classroom.Resume(p, filepath.Join(t.TempDir(), "none.json"), "")
		if err != nil {
			t.Fatal(err)
		}
		s.Current = current
		app := viz.NewApp(lessons.All()...)
		if err := s.Open(app); err != nil {
			t.Fatal(err)
		}
		pt, ok := ebitenview.ExerciseControl(app, s, d.w, d.h, act)
		if !ok {
			t.Fatalf("exercise %d shows no %s", current+1, act)
		}
		xdo(t, "mousemove", "--window", d.win, strconv.Itoa(pt.X), strconv.Itoa(pt.Y))
		xdo(t, "click", "1")
		d.await("the click on "+act, func(l string) bool { return strings.HasPrefix(l, "click ") })
	}
	at(0, "field")
	xdo(t, "type", "--window", d.win, strconv.FormatFloat(key["user-level-sensitivity"].(float64), 'g', -1, 64))
	xdo(t, "key", "--window", d.win, "Return")
	d.awaitLine("answer user-level-sensitivity right")
	right := d.shot("user-level")
	// ] opens the next exercise, logged before the key's release.
	xdo(t, "keydown", "bracketright")
	d.awaitLine("key ]")
	d.awaitLine(fmt.Sprintf("exercise 2 of %d: 1 right, 1 answered", len(p.Exercises)))
	xdo(t, "keyup", "bracketright")
	d.awaitLine("release ]")
	wrong := (key["user-level-ratio"].(int) + 1) % 4
	at(1, "choice:"+strconv.Itoa(wrong))
	d.awaitLine("answer user-level-ratio wrong")
	graded := d.shot("user-level")
	fig := ebitenview.FigureRect(d.w, d.h)
	panel := image.Rect(fig.Max.X, 0, d.w, d.h)
	if !differs(right.img, graded.img, panel) {
		t.Error("the panel did not change with the second exercise's grading")
	}
	quit()

	// Again with the same hand-in: the next exercise not answered, the same score.
	d, quit = launch(t, bin, subdir(shots, "resumed"), "-exercises", "builtin", "-handin", handin)
	defer quit()
	if want := fmt.Sprintf("exercise 3 of %d: 1 right, 2 answered", len(p.Exercises)); !slices.Contains(d.early, want) {
		t.Errorf("the app resumed with %q, want %q", d.early, want)
	}
	f, err := os.Open(handin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := exercise.DecodeHandin(f)
	if err != nil || h.Student != "Ada" {
		t.Fatalf("the hand-in: %+v %v", h, err)
	}
	if r, err := p.For(h.Student).Grade(h.Answers, classroom.Lab{}); err != nil || r.Score != 1 {
		t.Errorf("the teacher grades the hand-in %d: %v", r.Score, err)
	}
}

// subdir makes a directory for a second launch's screenshots (each launch
// numbers its screenshots from 1 again).
func subdir(shots, name string) string {
	dir := filepath.Join(shots, name)
	os.MkdirAll(dir, 0o755)
	return dir
}

// launch starts the app with args (besides its size, screenshot directory
// and input log) and returns its window once the first frame is drawn,
// and a func that closes it.
func launch(t *testing.T, bin, shots string, args ...string) (*desk, func()) {
	t.Helper()
	d := &desk{t: t, shots: shots}
	app := exec.Command(bin, append([]string{"-size", "1200x760", "-shots", shots, "-log-input"}, args...)...)
	var stderr bytes.Buffer
	app.Stderr = &stderr
	out, err := app.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	ownGroup(app)
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	quit := func() {
		once.Do(func() {
			killGroup(app)
			app.Wait()
			if stderr.Len() > 0 {
				t.Logf("desktop stderr:\n%s", stderr.String())
			}
		})
	}
	d.lines = make(chan string, 1024)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			d.lines <- sc.Text()
		}
		close(d.lines)
	}()
	// xdotool's --sync waits for ever: an app that dies before its window
	// shows would hang the test, so the wait has the same deadline as
	// every other. A search can also fail outright when a window vanishes
	// under it (the last launch's, closing): it is tried again.
	deadline := time.Now().Add(waitFor)
	for {
		ctx, cancel := context.WithDeadline(context.Background(), deadline)
		win, err := exec.CommandContext(ctx, "xdotool", "search", "--sync", "--onlyvisible", "--pid", strconv.Itoa(app.Process.Pid)).Output()
		cancel()
		if f := strings.Fields(string(win)); err == nil && len(f) > 0 {
			d.win = f[0]
			break
		}
		if time.Now().After(deadline) {
			var stderrOut string
			if ee, ok := err.(*exec.ExitError); ok {
				stderrOut = string(ee.Stderr)
			}
			quit()
			t.Fatalf("the app's window did not show within %v: %v %s", waitFor, err, stderrOut)
		}
		time.Sleep(50 * time.Millisecond) // before searching again, within the deadline
	}
	// The app says its size once it has drawn its first frame: input sent
	// before that could land on a window that is not laid out yet.
	size := strings.Fields(d.await("the first frame", func(l string) bool {
		d.early = append(d.early, l)
		return strings.HasPrefix(l, "size ")
	}))
	d.w, d.h = atoi(t, size[1]), atoi(t, size[2])
	t.Logf("window %s, %d×%d", d.win, d.w, d.h)
	return d, quit
}

// desk drives one desktop window. Every input is held until the app reports
// that it acted on it (its -log-input lines), so a slow frame on a busy
// machine delays the test instead of losing a press: Ebitengine polls input
// once per tick, and a press and release inside one tick are never seen.
type desk struct {
	t     *testing.T
	shots string
	win   string
	lines chan string // the app's input log
	early []string    // its lines up to the first frame's
	n     int         // screenshots taken
	w, h  int
}

// waitFor bounds every wait for the app: far beyond a frame even on a loaded
// software-rendered X server, short enough to fail a hung app clearly.
const waitFor = 60 * time.Second

// await reads the app's input log until a line matches, and returns it.
func (d *desk) await(what string, match func(string) bool) string {
	d.t.Helper()
	timeout := time.After(waitFor)
	var seen []string
	for {
		select {
		case l, ok := <-d.lines:
			if !ok {
				d.t.Fatalf("the app exited while waiting for %s; its last input lines: %q", what, seen)
			}
			if match(l) {
				return l
			}
			if seen = append(seen, l); len(seen) > 8 {
				seen = seen[1:]
			}
		case <-timeout:
			d.t.Fatalf("the app did not report %s within %v; its last input lines: %q", what, waitFor, seen)
		}
	}
}

// awaitLine waits for exactly line.
func (d *desk) awaitLine(line string) {
	d.t.Helper()
	d.await(strconv.Quote(line), func(l string) bool { return l == line })
}

// locate returns the window position of item id in the scene's figure,
// drawn at the window's figure size by the same Go code the app runs.
func (d *desk) locate(a *viz.App, id int) viz.Point {
	fig := ebitenview.FigureRect(d.w, d.h)
	l, _ := a.Frame(float64(fig.Dx()), float64(fig.Dy()))
	p, ok := l.Locate(id)
	if !ok {
		d.t.Fatalf("item %d is not drawn", id)
	}
	return viz.Point{X: float64(fig.Min.X) + p.X, Y: float64(fig.Min.Y) + p.Y}
}

// drag presses at p (window coordinates), moves by (dx, dy) in eight steps,
// and releases, each step once the app has seen the one before.
func (d *desk) drag(p viz.Point, dx, dy float64) {
	d.t.Helper()
	x, y := int(p.X), int(p.Y)
	move := func(x, y int) { xdo(d.t, "mousemove", "--window", d.win, strconv.Itoa(x), strconv.Itoa(y)) }
	move(x, y)
	xdo(d.t, "mousedown", "1")
	d.awaitLine(fmt.Sprintf("down %d %d", x, y))
	px, py := x, y
	for i := 1; i <= 8; i++ {
		mx, my := x+int(dx)*i/8, y+int(dy)*i/8
		if mx == px && my == py {
			continue // the app logs moves only
		}
		move(mx, my)
		d.awaitLine(fmt.Sprintf("move %d %d", mx, my))
		px, py = mx, my
	}
	xdo(d.t, "mouseup", "1")
	d.awaitLine(fmt.Sprintf("up %d %d", x+int(dx), y+int(dy)))
}

// appKeys are the app's names of the keys the test presses by their X names.
var appKeys = map[string]string{"Right": "ArrowRight", "Left": "ArrowLeft", "End": "End", "space": "Space"}

// key presses a key until the app has acted on it, then releases it until
// the app has seen the release (so the next press of it is a new press).
func (d *desk) key(k string) {
	d.t.Helper()
	name := k
	if n, ok := appKeys[k]; ok {
		name = n
	}
	xdo(d.t, "keydown", k)
	d.awaitLine("key " + name)
	xdo(d.t, "keyup", k)
	d.awaitLine("release " + name)
}

// shot presses P and reads the screenshot the app saves of scene.
func (d *desk) shot(scene string) screenshot {
	d.t.Helper()
	d.n++
	base := filepath.Join(d.shots, "uldp-"+scene+"-"+strconv.Itoa(d.n))
	// The app saves in the frame that saw the press, before the release.
	xdo(d.t, "keydown", "p")
	if got := d.await("a screenshot", func(l string) bool { return strings.HasPrefix(l, "shot ") }); got != "shot "+base {
		d.t.Fatalf("expected screenshot %s, the app saved %s", base, strings.TrimPrefix(got, "shot "))
	}
	xdo(d.t, "keyup", "p")
	d.awaitLine("release p")
	state, err := os.ReadFile(base + ".state")
	if err != nil {
		d.t.Fatal(err)
	}
	raw, err := os.ReadFile(base + ".png")
	if err != nil {
		d.t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		d.t.Fatalf("%s.png: %v", base, err)
	}
	return screenshot{img, string(state)}
}

func xdo(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command("xdotool", args...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("xdotool %v: %v", args, err)
	}
	return string(out)
}

type screenshot struct {
	img   image.Image
	state string
}

func colours(img image.Image) int {
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[r>>8<<16|g>>8<<8|bl>>8] = true
		}
	}
	return len(seen)
}

// hued counts the pixels of r with a hue (not grey: a channel 60 above
// another), every third row and column.
func hued(img image.Image, r image.Rectangle) int {
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y += 3 {
		for x := r.Min.X; x < r.Max.X; x += 3 {
			c, g, b, _ := img.At(x, y).RGBA()
			if max(c, g, b)>>8-min(c, g, b)>>8 > 60 {
				n++
			}
		}
	}
	return n
}

func differs(a, b image.Image, r image.Rectangle) bool {
	r = r.Intersect(a.Bounds())
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if a.At(x, y) != b.At(x, y) {
				return true
			}
		}
	}
	return false
}

func atoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func mustFloat(t *testing.T, s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
