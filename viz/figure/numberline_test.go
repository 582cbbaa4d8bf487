package figure

import (
	"math"
	"slices"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// crowd is 13 close users and one far outlier.
var crowd = []float64{0, 0.05, -0.05, 0.10, -0.10, 0.02, -0.02, 0.07, -0.07, 0.03, -0.03, 0.04, -0.04, 1000}

func TestNumberLineScales(t *testing.T) {
	for _, c := range []struct {
		name   string
		values []float64
		log    bool
	}{
		{"a crowd and a far outlier", crowd, true},
		{"evenly spread", []float64{0, 1, 2, 3, 4, 5, 6, 7}, false},
		{"all equal but one", []float64{0, 0, 0, 0, 0, 0, 0, 50}, false},
	} {
		n := FitLine(c.values, 40, 720)
		if (n.c != 0) != c.log {
			t.Errorf("%s: knee %v, want log scale %v", c.name, n.c, c.log)
		}
		for _, v := range c.values {
			x := n.XOf(v)
			if x < 40 || x > 760 {
				t.Errorf("%s: %v drawn at x = %v, off the line", c.name, v, x)
			}
			if back := n.ValueAtX(x); !(math.Abs(back-v) <= 1e-9*math.Max(1, math.Abs(v))) {
				t.Errorf("%s: %v → x = %v → %v", c.name, v, x, back)
			}
		}
		ticks := n.ticks()
		if len(ticks) < 3 {
			t.Errorf("%s: ticks %v", c.name, ticks)
		}
		for i := 1; i < len(ticks); i++ {
			if gap := n.XOf(ticks[i]) - n.XOf(ticks[i-1]); gap < 30 {
				t.Errorf("%s: ticks %v and %v only %.0f px apart", c.name, ticks[i-1], ticks[i], gap)
			}
		}
	}
	// On the log line the crowd gets room: its 13 users span a third of the
	// row instead of 2 px.
	n := FitLine(crowd, 40, 720)
	if span := n.XOf(0.10) - n.XOf(-0.10); span < 200 {
		t.Errorf("the crowd spans %.0f px", span)
	}
}

// Every user stays grabbable: no two dots overlap, and a hit on a dot's
// centre finds that user (up to three users at one value stack).
func TestValueRowDotsDoNotOverlap(t *testing.T) {
	for _, values := range [][]float64{crowd, {0, 0, 0, 0.001, 0.002, 5}} {
		var l viz.List
		l.Reset(800, 300)
		at := DrawValueRow(&l, values, FitLine(values, 40, 720), 200, 1, -1, 0, "users")
		for i := range at {
			for j := range i {
				if d := math.Hypot(at[i].X-at[j].X, at[i].Y-at[j].Y); d < 12-1e-9 {
					t.Errorf("users %d and %d overlap (%.1f px apart)", i+1, j+1, d)
				}
			}
			if id := l.Hit(at[i], 0); id != i+1 {
				t.Errorf("a hit on user %d finds %d", i+1, id)
			}
		}
	}
}

// A crowd at one value is one dot marked ×k; grabbing it takes the crowd's
// first user, and the others sit under it.
func TestValueRowCrowdDot(t *testing.T) {
	values := append(make([]float64, 300), 2, 5) // 300 users at 0
	var l viz.List
	l.Reset(800, 300)
	at := DrawValueRow(&l, values, FitLine(values, 40, 720), 200, 1, -1, 0, "users")
	if !scenetest.HasText(&l, "×300") {
		t.Error("no ×300 label on the crowd")
	}
	circles := 0
	for _, it := range l.Items {
		if it.Kind == viz.Circle {
			circles++
		}
	}
	if circles != 3 {
		t.Errorf("%d dots for a crowd and two users, want 3", circles)
	}
	if id := l.Hit(at[150], 0); id != 1 || at[150] != at[0] {
		t.Errorf("a hit on the crowd finds %d (want its first user, 1)", id)
	}
}

// A row drawn with idBase 0 offers nothing to hit (it is not for
// dragging); with idBase k, user i answers as k + i.
func TestValueRowIDs(t *testing.T) {
	ax := FitLine([]float64{0, 1, 2}, 20, 300)
	for _, c := range []struct {
		base int
		want []int
	}{{0, nil}, {5, []int{5, 6, 7}}} {
		var l viz.List
		l.Reset(400, 200)
		DrawValueRow(&l, []float64{0, 1, 2}, ax, 100, c.base, -1, 0, "row")
		if got := l.IDs(); !slices.Equal(got, c.want) {
			t.Errorf("idBase %d: IDs %v, want %v", c.base, got, c.want)
		}
	}
}
