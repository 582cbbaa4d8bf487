package userlevel

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/robust"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

func TestPlaygroundDragOneItem(t *testing.T) {
	a, p := scenetest.Open(t, New())
	l := scenetest.Frame(a)
	before := p.data.Clone()
	at, ok := l.Locate(p.itemID(3, 2))
	if !ok {
		t.Fatal("item (4, 3) not drawn")
	}
	scenetest.Drag(a, at, 40, -20)
	for i := range p.data.Users {
		for j := range p.data.Items(i) {
			moved := !reflect.DeepEqual(p.data.Item(i, j), before.Item(i, j))
			if moved != (i == 3 && j == 2) {
				t.Errorf("item (%d, %d) moved = %v", i, j, moved)
			}
		}
	}
	it, old := p.data.Item(3, 2), before.Item(3, 2)
	if dx := (it[0] - old[0]) * p.cam.Scale; !(math.Abs(dx-40) <= 1e-6) {
		t.Errorf("item moved %v px right, want 40", dx)
	}
	if dy := (it[1] - old[1]) * p.cam.Scale; !(math.Abs(dy-20) <= 1e-6) { // screen up = world up
		t.Errorf("item moved %v px up, want 20", dy)
	}
	if got, want := p.means[3], p.data.UserMean(3, nil); !reflect.DeepEqual(got, want) {
		t.Errorf("user mean not updated: %v vs %v", got, want)
	}
}

func TestPlaygroundDragWholeUser(t *testing.T) {
	a, p := scenetest.Open(t, New())
	l := scenetest.Frame(a)
	before := p.data.Clone()
	// The first user whose ringed mean is on top where it is drawn.
	u := -1
	var at viz.Point
	for i := range p.data.Users {
		at, _ = l.Locate(p.userID(i))
		if l.Hit(at, 3) == p.userID(i) {
			u = i
			break
		}
	}
	if u < 0 {
		t.Fatal("every user's mean is covered by another")
	}
	scenetest.Drag(a, at, -30, 25)
	for i := range p.data.Users {
		changed := !reflect.DeepEqual(p.data.Users[i], before.Users[i])
		if changed != (i == u) {
			t.Errorf("user %d changed = %v", i+1, changed)
		}
	}
	// Every item of the user moved by the same vector.
	var dx, dy float64
	for j := range p.data.Items(u) {
		nx := p.data.Item(u, j)[0] - before.Item(u, j)[0]
		ny := p.data.Item(u, j)[1] - before.Item(u, j)[1]
		if j > 0 && (!(math.Abs(nx-dx) <= 1e-9) || !(math.Abs(ny-dy) <= 1e-9)) {
			t.Fatalf("item %d moved by (%v, %v), item 1 by (%v, %v)", j+1, nx, ny, dx, dy)
		}
		dx, dy = nx, ny
	}
	// The mean of user means moves by exactly that vector over n.
	var old float64
	for i := range before.Users {
		old += before.UserMean(i, nil)[0] / float64(before.N())
	}
	if got, want := p.mean[0]-old, dx/float64(p.data.N()); !(math.Abs(got-want) <= 1e-12) {
		t.Errorf("mean moved by %v, want dx/n = %v", got, want)
	}
	// The incrementally kept order statistics equal a fresh computation.
	if med := robust.CoordMedian(p.means, nil, nil); !reflect.DeepEqual(med, p.median) {
		t.Errorf("median %v, recomputed %v", p.median, med)
	}
	if tm, _ := robust.TrimmedMean(p.means, p.trim, nil, nil); !(math.Abs(tm[0]-p.trimmed[0]) <= 1e-12) || !(math.Abs(tm[1]-p.trimmed[1]) <= 1e-12) {
		t.Errorf("trimmed mean %v, recomputed %v", p.trimmed, tm)
	}
}

func TestPlaygroundSensitivitiesAndConcentration(t *testing.T) {
	a, p := scenetest.Open(t, New())
	scenetest.MustSet(t, a, "radius", "5")
	if got := scenetest.ReadoutValue(a, "item-sens"); !(math.Abs(got-0.05) <= 1e-15) { // 2·5/(20·10)
		t.Errorf("item-level sensitivity %v, want 0.05", got)
	}
	if got := scenetest.ReadoutValue(a, "user-sens"); !(math.Abs(got-0.5) <= 1e-15) { // 2·5/20
		t.Errorf("user-level sensitivity %v, want 0.5", got)
	}
	// User means concentrate like σ√(d/m) for i.i.d. items, not for homogeneous
	// users. With n = 400 users the RMS is within 20 % of σ√(d/m) except with
	// probability < 1e-6 (χ² tails with 800 degrees of freedom); fixed seed.
	scenetest.MustSet(t, a, "n", "400")
	scenetest.MustSet(t, a, "m", "25")
	if got, want := scenetest.ReadoutValue(a, "rms"), math.Sqrt(2.0/25); !(math.Abs(got-want) <= 0.2*want) {
		t.Errorf("i.i.d.: RMS of user means %v, want ≈ %v", got, want)
	}
	// The theory's number sits beside its own formula.
	if got := p.Readouts()[2].Formula; !strings.HasPrefix(got, "≈ σ√(d/m) = 0.283 ") {
		t.Errorf("i.i.d. formula %q, want σ√(d/m) = 0.283 first", got)
	}
	scenetest.MustSet(t, a, "kind", dataset.Homogeneous)
	if got, want := scenetest.ReadoutValue(a, "rms"), math.Sqrt(2.0); !(math.Abs(got-want) <= 0.2*want) {
		t.Errorf("homogeneous: RMS of user means %v, want ≈ %v", got, want)
	}
	if got := p.Readouts()[2].Formula; !strings.HasPrefix(got, "≈ σ√d = 1.41 ") {
		t.Errorf("homogeneous formula %q, want σ√d = 1.41 first", got)
	}
	if p.spec.N != 400 || p.spec.M != 25 {
		t.Errorf("spec %+v", p.spec)
	}
}

func TestPlaygroundPanZoomLeaveDataAlone(t *testing.T) {
	a, p := scenetest.Open(t, New())
	scenetest.Frame(a)
	before := p.data.Clone()
	scale := p.cam.Scale
	// An empty corner: pan.
	scenetest.Drag(a, viz.Point{X: scenetest.W - 5, Y: scenetest.H - 40}, -50, 0)
	a.Event(viz.Event{Kind: viz.Wheel, X: 300, Y: 300, Delta: 2})
	if !reflect.DeepEqual(p.data, before) {
		t.Error("panning or zooming moved data")
	}
	if !(math.Abs(p.cam.Scale-scale*1.15*1.15) <= 1e-9*scale) {
		t.Errorf("zoom: scale %v → %v", scale, p.cam.Scale)
	}
	scenetest.Frame(a)
	if !p.fitted {
		t.Error("panning should keep the user's view")
	}
	scenetest.MustSet(t, a, "fit", "")
	scenetest.Frame(a)
	if p.cam.Scale == scale*1.15*1.15 {
		t.Error("fit did not refit the view")
	}
}

func TestPlaygroundDeterministicAndRestorable(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	b, _ := scenetest.Open(t, New())
	for _, app := range []*viz.App{a, b} {
		scenetest.MustSet(t, app, "kind", "outliers")
		scenetest.MustSet(t, app, "seed", "7")
	}
	if !reflect.DeepEqual(scenetest.Frame(a).Items, scenetest.Frame(b).Items) {
		t.Fatal("same seed, different figures")
	}
	c, _ := scenetest.Open(t, New())
	if err := c.Restore(a.State()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(scenetest.Frame(a).Items, scenetest.Frame(c).Items) {
		t.Fatal("restored state draws differently")
	}
}

func TestPlaygroundRejectsBadValues(t *testing.T) {
	a, p := scenetest.Open(t, New())
	for _, c := range [][3]string{
		{"n", "0", "outside"}, {"n", "1e9", "outside"}, {"m", "NaN", "not a number"},
		{"spread", "-1", "outside"}, {"kind", "uniform", "choose gaussian, clusters"}, {"trim", "0.5", "outside"},
		{"n", "20.66", "whole number"},
	} {
		err := a.Set(c[0], c[1])
		if err == nil || !strings.Contains(err.Error(), c[2]) {
			t.Errorf("Set(%s, %s): %v, want %q", c[0], c[1], err, c[2])
		}
	}
	if p.spec.N != 20 || p.spec.Kind != dataset.Gaussian {
		t.Errorf("a rejected value changed the scene: %+v", p.spec)
	}
	if _, err := a.ExportTrace(); err == nil {
		t.Error("the playground has no trace to export")
	}
	if csv, err := a.ExportCSV(); err != nil || !strings.HasPrefix(string(csv), "user,x1,x2\n") {
		t.Errorf("CSV export: %v", err)
	}
}

// One drag step at the playground's largest size: pointer move, statistics
// update and the whole display list (2,000 users × 20 items).
func BenchmarkPlaygroundDrag(b *testing.B) {
	for _, size := range [][2]string{{"500", "20"}, {"2000", "20"}} {
		b.Run("n="+size[0], func(b *testing.B) {
			p := New()
			a := viz.NewApp(p)
			if err := a.Set("n", size[0]); err != nil {
				b.Fatal(err)
			}
			if err := a.Set("m", size[1]); err != nil {
				b.Fatal(err)
			}
			l, _ := a.Frame(scenetest.W, scenetest.H)
			at, _ := l.Locate(p.userID(7))
			a.Event(viz.Event{Kind: viz.PointerDown, X: at.X, Y: at.Y})
			k := 0
			for b.Loop() {
				k++
				a.Event(viz.Event{Kind: viz.PointerMove, X: at.X + float64(k%40), Y: at.Y})
				a.Frame(scenetest.W, scenetest.H)
			}
		})
	}
}

// The figure says what it shows, and a dragged user changes what it says.
func TestUserLevelDescribes(t *testing.T) {
	a, p := scenetest.Open(t, New())
	scenetest.Describes(t, a, func() {
		at, _ := scenetest.Frame(a).Locate(p.userID(0))
		scenetest.Drag(a, at, 60, 0)
	})
	if d := a.Describe(); !strings.Contains(d, "20 users of 10 items") {
		t.Errorf("description %q", d)
	}
}

// The keyboard moves a user's mean (the last item, ↑ from none) as a mouse
// drag does.
func TestUserLevelKeyboardDrag(t *testing.T) {
	scenetest.KeyboardMatchesMouse(t, scenetest.Opens(t, New), "ArrowUp")
	a, _ := scenetest.Open(t, New())
	scenetest.Chooses(t, a, "user 20's mean", "ArrowUp")
}

// At the opening state and at the sizes lessons are seen at, each of the
// three circles the text asks a reader to watch is drawn with a radius of
// at least 8 px somewhere — the main view or the inset around the mean (the
// item-level ball and the real influence were 5 and 10 px across) — and the
// header's text sits on paper drawn over the domain's dashed circle,
// which ran through it.
func TestUserLevelCirclesShowAndTheLegendIsClear(t *testing.T) {
	for _, size := range [][2]float64{{900, 640}, {1100, 760}, {390, 560}} {
		a, p := scenetest.Open(t, New())
		l, _ := a.Frame(size[0], size[1])
		for _, b := range p.balls() {
			largest := 0.0
			for _, it := range l.Items {
				if it.Kind == viz.Circle && it.Style.Stroke == b.col && it.Style.Fill == viz.None {
					largest = math.Max(largest, it.R)
				}
			}
			if largest < 8 {
				t.Errorf("%v: %s is at most %.1f px across", size, b.label, 2*largest)
			}
		}
		domain, backing := -1, -1
		for i, it := range l.Items {
			switch {
			case it.Kind == viz.Circle && it.Style.Dashed && it.Style.Stroke == viz.Muted:
				domain = i
			case it.Kind == viz.Rect && it.Style.Fill == viz.Paper && it.P[0] == (viz.Point{}) && backing < 0:
				backing = i
			}
		}
		if domain < 0 || backing < domain {
			t.Fatalf("%v: the domain's circle is item %d, the header's paper %d: want the paper drawn over it", size, domain, backing)
		}
		bottom := l.Items[backing].P[1].Y
		for _, it := range l.Items[backing+1:] {
			if it.Kind == viz.Text && strings.HasPrefix(it.Text, "◯") && it.P[0].Y > bottom {
				t.Errorf("%v: the legend line %q is below the header's paper (%.0f > %.0f)", size, it.Text, it.P[0].Y, bottom)
			}
		}
	}
}

// The mean's cross is drawn over the median's diamond and the trimmed
// mean's square, which sit on it when users agree and hid it.
func TestUserLevelMeanCrossOnTop(t *testing.T) {
	a, _ := scenetest.Open(t, New())
	l := scenetest.Frame(a)
	diamond, square, cross := -1, -1, -1
	for i, it := range l.Items {
		switch {
		case it.Kind == viz.Polygon && it.Style.Fill == viz.Purple:
			diamond = i
		case it.Kind == viz.Rect && it.Style.Fill == viz.Green && it.Style.Stroke == viz.Ink:
			square = i
		case it.Kind == viz.Line && it.Style.Stroke == viz.Ink && it.Style.Width == 3:
			cross = i
		}
	}
	if diamond < 0 || square < 0 || cross < max(diamond, square) {
		t.Errorf("diamond at %d, square at %d, the cross's last line at %d", diamond, square, cross)
	}
}

// Where every corner holds users ("outliers") there is no inset, and the
// legend asks for the wheel instead, as the text says.
func TestUserLevelNoInsetAsksToZoom(t *testing.T) {
	a, p := scenetest.Open(t, New(), [2]string{"kind", "outliers"})
	l, _ := a.Frame(900, 640)
	if in := p.ballsInset(900, 640); in.W != 0 {
		t.Fatal("outliers: an inset is drawn; the text says there is none")
	}
	if !scenetest.HasText(l, "(smaller than the markers: zoom in)") || !strings.Contains(Text(), "asks you to zoom in with the wheel") {
		t.Error("outliers: the legend or the text does not ask to zoom in")
	}
}

// The users are one layer a backend paints once: a drag takes the dragged
// user out of it, above, and the layer's key then stays from move to move;
// every user is drawn once either way, and the layer changes once the user
// is let go where it was moved to.
func TestUserLevelDragKeepsTheLayer(t *testing.T) {
	a, p := scenetest.Open(t, New())
	// layer returns the layer's key and which users' items and means are
	// drawn inside it and after it.
	users := func(items []viz.Item) map[int]int {
		seen := map[int]int{}
		nm := p.spec.N * p.spec.M
		for _, it := range items {
			switch {
			case it.Kind == viz.Dots && it.ID > 0:
				seen[(it.ID-1)/p.spec.M]++
			case it.Kind == viz.Circle && it.ID > nm:
				seen[it.ID-nm-1]++
			}
		}
		return seen
	}
	layer := func() (key string, in, out map[int]int) {
		key, inside, outside := scenetest.Layer(scenetest.Frame(a))
		return key, users(inside), users(outside)
	}
	k0, in, out := layer()
	if k0 == "" || len(in) != p.spec.N || len(out) != 0 {
		t.Fatalf("before the drag: key %q, %d users in the layer, %v after it", k0, len(in), out)
	}
	u := 4
	at, _ := scenetest.Frame(a).Locate(p.userID(u))
	a.Event(viz.Event{Kind: viz.PointerDown, X: at.X, Y: at.Y})
	a.Event(viz.Event{Kind: viz.PointerMove, X: at.X + 5, Y: at.Y})
	k1, in, out := layer()
	if k1 == k0 || len(in) != p.spec.N-1 || in[u] != 0 || !reflect.DeepEqual(out, map[int]int{u: 2}) {
		t.Fatalf("dragging user %d: key %q (before %q), %d users in the layer, %v after it", u+1, k1, k0, len(in), out)
	}
	for k := range 3 {
		a.Event(viz.Event{Kind: viz.PointerMove, X: at.X + 10 + float64(k), Y: at.Y - 5})
		if k2, _, _ := layer(); k2 != k1 {
			t.Fatalf("move %d changed the layer's key: %q → %q", k+2, k1, k2)
		}
	}
	a.Event(viz.Event{Kind: viz.PointerUp, X: at.X + 12, Y: at.Y - 5})
	k3, in, out := layer()
	if k3 == k0 || k3 == k1 || len(in) != p.spec.N || len(out) != 0 {
		t.Errorf("after the drag: key %q (before %q, during %q), %d users in the layer, %v after it", k3, k0, k1, len(in), out)
	}
}
