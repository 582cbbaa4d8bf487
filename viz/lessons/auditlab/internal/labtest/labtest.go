// Package labtest holds what the audit lab's scenes' tests share.
package labtest

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
	"github.com/uldplab/uldp/viz/lessons/auditlab/internal/lab"
)

// RunMC presses the button and ticks the app like frames until the audit is
// done, checking the progress shows in between: every tick that leaves the
// audit unfinished must say "sampling".
func RunMC(t *testing.T, a *viz.App, mc *lab.MC) audit.MCResult {
	t.Helper()
	scenetest.MustSet(t, a, "monte-carlo", "")
	frames := 0
	for ; a.Tick(1.0 / 60); frames++ {
		if frames > 10_000 {
			t.Fatal("the Monte Carlo audit never finished")
		}
		if r, _ := scenetest.Readout(a, "mc"); !mc.Run().Done() && !strings.HasPrefix(r.Text, "sampling") {
			t.Fatalf("tick %d left the audit unfinished without showing progress: %q", frames+1, r.Text)
		}
	}
	if !mc.Run().Done() {
		t.Fatalf("ticks stopped before the audit finished: %+v", mc.Err())
	}
	if r, _ := scenetest.Readout(a, "mc"); !strings.Contains(r.Text, "with probability ≥ 0.999") {
		t.Errorf("result readout %q", r.Text)
	}
	t.Logf("%d runs per side in %d ticks", mc.Runs, frames)
	res := mc.Run().Result()
	// The worst event's line counts the runs it happened in, out of the
	// runs made (a share printed bare read as "1 of B's runs" for all).
	var lines []string
	for _, it := range scenetest.Frame(a).Items {
		if it.Kind == viz.Text {
			lines = append(lines, it.Text)
		}
	}
	all := strings.Join(lines, " ") // a long line is broken onto several
	m := regexp.MustCompile(`happened in (\d+) of A's (\d+) runs and (\d+) of B's`).FindStringSubmatch(all)
	if m == nil {
		t.Fatalf("no line counts the runs the worst event happened in: %q", all)
	}
	ka, _ := strconv.Atoi(m[1])
	runs, _ := strconv.Atoi(m[2])
	kb, _ := strconv.Atoi(m[3])
	off := func(k int, p float64) bool { return math.Abs(float64(k)-p*float64(runs)) > 0.5 }
	if runs != res.Runs || off(ka, res.Worst.PA) || off(kb, res.Worst.PB) {
		t.Errorf("the line says %d and %d of %d runs; the audit saw shares %v and %v of %d", ka, kb, runs, res.Worst.PA, res.Worst.PB, res.Runs)
	}
	return res
}

// Sample runs a Monte Carlo audit of so many runs a side to its end, a
// slice per tick.
func Sample(t *testing.T, a *viz.App, runs string) {
	t.Helper()
	scenetest.MustSet(t, a, "runs", runs)
	scenetest.MustSet(t, a, "monte-carlo", "")
	for range 1_000_000 {
		if !a.Tick(1.0 / 60) {
			return
		}
	}
	t.Fatal("the audit did not end")
}

// BlueBars counts the filled bars of A's sampled answers in l.
func BlueBars(l *viz.List) int {
	n := 0
	for _, it := range l.Items {
		if it.Kind == viz.Rect && it.Style.Fill == viz.Blue {
			n++
		}
	}
	return n
}
