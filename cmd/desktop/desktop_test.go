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
// package inside xvfb-run), drag a bar with real pointer events from
// xdotool, and check the screenshots the app saves on P.
func TestDesktopDragAndScreenshot(t *testing.T) {
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
	shots := filepath.Join(dir, "shots")
	os.Mkdir(shots, 0o755)
	app := exec.Command(bin, "-size", "1200x760", "-shots", shots, "-state", "scene=abovethreshold")
	var stderr bytes.Buffer
	app.Stderr = &stderr
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	defer app.Process.Kill()

	win := xdo(t, "search", "--sync", "--onlyvisible", "--pid", strconv.Itoa(app.Process.Pid))
	win = strings.Fields(win)[0]
	geo := map[string]int{}
	for _, line := range strings.Split(xdo(t, "getwindowgeometry", "--shell", win), "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			geo[k], _ = strconv.Atoi(v)
		}
	}
	t.Logf("window %s at (%d, %d), %d×%d", win, geo["X"], geo["Y"], geo["WIDTH"], geo["HEIGHT"])

	// Where is bar 2? Ask the same scene at the same figure size.
	fig := ebitenview.FigureRect(geo["WIDTH"], geo["HEIGHT"])
	ref := viz.NewApp(scenes.NewAboveThreshold())
	l, _ := ref.Frame(float64(fig.Dx()), float64(fig.Dy()))
	bar, ok := l.Locate(2)
	if !ok {
		t.Fatal("the scene has no bar 2")
	}
	x, y := geo["X"]+fig.Min.X+int(bar.X), geo["Y"]+fig.Min.Y+int(bar.Y)

	time.Sleep(500 * time.Millisecond) // a few frames drawn
	xdo(t, "mousemove", strconv.Itoa(x), strconv.Itoa(y))
	before := shot(t, shots, 1)
	xdo(t, "mousedown", "1")
	for i := 1; i <= 8; i++ {
		time.Sleep(40 * time.Millisecond) // one event per tick at 60 TPS
		xdo(t, "mousemove", strconv.Itoa(x), strconv.Itoa(y-8*i))
	}
	time.Sleep(60 * time.Millisecond)
	xdo(t, "mouseup", "1")
	after := shot(t, shots, 2)

	q := func(state string) []string {
		v, err := url.ParseQuery(strings.TrimSpace(state))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Split(v.Get("queries"), ",")
	}
	q0, q1 := q(before.state), q(after.state)
	for i := range q0 {
		if changed := q0[i] != q1[i]; changed != (i == 1) {
			t.Errorf("query %d changed = %v (%s → %s)", i+1, changed, q0[i], q1[i])
		}
	}
	if a, b := mustFloat(t, q0[1]), mustFloat(t, q1[1]); !(b > a) {
		t.Errorf("dragging bar 2 up lowered it: %v → %v", a, b)
	}
	// Non-trivial content: many colours, and the figure changed where the bar is.
	if n := colours(after.img); n < 8 {
		t.Errorf("screenshot has only %d distinct colours", n)
	}
	if !differs(before.img, after.img, image.Rect(x-geo["X"]-20, 0, x-geo["X"]+20, fig.Dy())) {
		t.Error("the screenshot did not change around the dragged bar")
	}
	if stderr.Len() > 0 {
		t.Logf("desktop stderr:\n%s", stderr.String())
	}
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

// shot presses P and waits for the app's n-th screenshot and state file.
func shot(t *testing.T, dir string, n int) screenshot {
	t.Helper()
	xdo(t, "keydown", "p")
	time.Sleep(60 * time.Millisecond)
	xdo(t, "keyup", "p")
	base := filepath.Join(dir, "uldp-abovethreshold-"+strconv.Itoa(n))
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		state, err1 := os.ReadFile(base + ".state")
		raw, err2 := os.ReadFile(base + ".png")
		if err1 == nil && err2 == nil {
			img, err := png.Decode(bytes.NewReader(raw))
			if err == nil {
				return screenshot{img, string(state)}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no screenshot %s.png within 10 s", base)
	return screenshot{}
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
