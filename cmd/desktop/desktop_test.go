package main

import (
	"bytes"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/ebitenview"
	"github.com/uldplab/uldp/viz/scenes"
)

// The desktop app in a real window: start it under X (make test runs this
// package inside xvfb-run), drive every lesson with real pointer and key
// events from xdotool, and check the screenshots the app saves on P.
func TestDesktopLessons(t *testing.T) {
	if os.Getenv("DISPLAY") == "" || exec.Command("xdotool", "version").Run() != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI needs a display and xdotool for the desktop test: run it through make test (xvfb-run)")
		}
		t.Skip("needs an X display and xdotool; make test runs this under xvfb-run")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "desktop")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	d := &desk{t: t, shots: filepath.Join(dir, "shots")}
	os.Mkdir(d.shots, 0o755)
	app := exec.Command(bin, "-size", "1200x760", "-shots", d.shots)
	var stderr bytes.Buffer
	app.Stderr = &stderr
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	defer app.Process.Kill()
	defer func() {
		if stderr.Len() > 0 {
			t.Logf("desktop stderr:\n%s", stderr.String())
		}
	}()
	win := strings.Fields(xdo(t, "search", "--sync", "--onlyvisible", "--pid", strconv.Itoa(app.Process.Pid)))[0]
	d.win = win
	for _, line := range strings.Split(xdo(t, "getwindowgeometry", "--shell", win), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			n, _ := strconv.Atoi(v)
			switch k {
			case "X":
				d.x = n
			case "Y":
				d.y = n
			case "WIDTH":
				d.w = n
			case "HEIGHT":
				d.h = n
			}
		}
	}
	t.Logf("window %s at (%d, %d), %d×%d", win, d.x, d.y, d.w, d.h)
	time.Sleep(500 * time.Millisecond) // a few frames drawn
	fig := ebitenview.FigureRect(d.w, d.h)

	// Lesson 1: drag user 6 by its mean; the figure changes around it.
	play := scenes.NewPlayground()
	at := d.locate(viz.NewApp(play), 1+20*10+5)
	before := d.shot("user-level")
	d.drag(at, 60, -40)
	after := d.shot("user-level")
	if !differs(before.img, after.img, image.Rect(int(at.X)-15, int(at.Y)-15, int(at.X)+15, int(at.Y)+15)) {
		t.Error("lesson 1: dragging user 6 did not change the figure where it was")
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
	ref := viz.NewApp(scenes.NewAboveThreshold())
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
	// Lesson 8: M starts the Monte Carlo audit, sampled between frames;
	// the verdict line under the profile appears when it is done.
	d.key("8")
	opened := d.shot("audit")
	user := d.locate(viz.NewApp(scenes.NewAuditLab()), 1000+1+2) // B's user 3
	d.drag(user, 80, 0)
	lab := d.shot("audit")
	if !differs(opened.img, lab.img, image.Rect(int(user.X)-10, int(user.Y)-10, int(user.X)+10, int(user.Y)+10)) {
		t.Error("lesson 8: dragging B's user 3 did not move it")
	}
	d.key("m")
	time.Sleep(5 * time.Second)
	audited := d.shot("audit")
	if !differs(lab.img, audited.img, image.Rect(fig.Min.X, fig.Max.Y-120, fig.Max.X, fig.Max.Y)) {
		t.Error("lesson 8: M did not run the Monte Carlo audit (the figure's foot is unchanged)")
	}
	for name, s := range map[string]screenshot{"lesson 1": after, "lesson 2": cal, "lesson 3": dragged, "lesson 4": stab, "lesson 5": orme, "lesson 6": sgd, "lesson 7": phased, "lesson 8": audited} {
		if n := colours(s.img); n < 8 {
			t.Errorf("%s: screenshot has only %d distinct colours", name, n)
		}
	}
}

// desk drives one desktop window.
type desk struct {
	t          *testing.T
	shots      string
	win        string
	n          int // screenshots taken
	x, y, w, h int
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

// Input is paced for a software-rendered X server, where a frame can take
// longer than 100 ms: Ebitengine polls input once per frame, so a press and
// release inside one frame would be seen as nothing.
const pace = 200 * time.Millisecond

// drag presses at p (window coordinates), moves by (dx, dy) in eight paced
// steps, and releases.
func (d *desk) drag(p viz.Point, dx, dy float64) {
	x, y := int(p.X), int(p.Y)
	move := func(x, y int) { xdo(d.t, "mousemove", "--window", d.win, strconv.Itoa(x), strconv.Itoa(y)) }
	move(x, y)
	time.Sleep(pace)
	xdo(d.t, "mousedown", "1")
	time.Sleep(pace) // the press must be seen where it happened
	for i := 1; i <= 8; i++ {
		time.Sleep(pace / 2)
		move(x+int(dx)*i/8, y+int(dy)*i/8)
	}
	time.Sleep(pace)
	xdo(d.t, "mouseup", "1")
	time.Sleep(pace)
}

// key presses and releases a key, paced so a slow frame still sees it.
func (d *desk) key(k string) {
	xdo(d.t, "keydown", k)
	time.Sleep(pace)
	xdo(d.t, "keyup", k)
	time.Sleep(pace)
}

// shot presses P and waits for the app's next screenshot of scene.
func (d *desk) shot(scene string) screenshot {
	d.t.Helper()
	d.n++
	d.key("p")
	base := filepath.Join(d.shots, "uldp-"+scene+"-"+strconv.Itoa(d.n))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		state, err1 := os.ReadFile(base + ".state")
		raw, err2 := os.ReadFile(base + ".png")
		if err1 == nil && err2 == nil {
			if img, err := png.Decode(bytes.NewReader(raw)); err == nil {
				return screenshot{img, string(state)}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	d.t.Fatalf("no screenshot %s.png within 10 s", base)
	return screenshot{}
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

func mustFloat(t *testing.T, s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
