package ratesexplorer

import (
	"bytes"
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/scenetest"
)

// A copy of the explorer that adopts another copy's sweep shows what it
// would have computed itself, partway and at the end, and computes
// nothing meanwhile; an outcome for other settings, or one that does not
// decode, is refused.
func TestRatesSweepComputedElsewhere(t *testing.T) {
	defer func(c func() float64) { viz.Clock = c }(viz.Clock)
	var now float64
	viz.Clock = func() float64 { now += 1; return now }
	const state = "scene=rates&seeds=4"

	worker := viz.NewApp(New())
	if err := worker.Restore(state); err != nil {
		t.Fatal(err)
	}
	page := viz.NewApp(New())
	if err := page.Restore(state); err != nil {
		t.Fatal(err)
	}
	key := page.RemoteKey()
	if key == "" || key != worker.RemoteKey() {
		t.Fatalf("keys %q and %q: a copy restored to the page's state must name the same sweep", key, worker.RemoteKey())
	}
	page.Hold(key)
	for range 50 {
		page.Tick(1.0 / 60)
	}
	if r := page.Scene().(*Scene); len(r.points) != 0 || r.simDone != 0 || r.job != nil {
		t.Fatalf("the page computed while its sweep was held: %d points, %d runs", len(r.points), r.simDone)
	}

	// Partway: the worker's first two points.
	for len(worker.Scene().(*Scene).points) < 2 {
		worker.Tick(1.0 / 60)
	}
	data, done := worker.Outcome()
	if done {
		t.Fatal("the outcome of a sweep under way says it is done")
	}
	if err := page.Adopt(key, data, done); err != nil {
		t.Fatalf("adopting a partial outcome: %v", err)
	}
	if !page.Busy() || page.RemoteKey() != key {
		t.Error("a partial outcome ended the page's sweep")
	}
	if got, want := scenetest.Seen(page), scenetest.Seen(worker); !bytes.Equal(got, want) {
		t.Errorf("partway, the page shows %d bytes unlike the worker's %d", len(got), len(want))
	}
	if r := mustRead(t, page, "computing"); !strings.Contains(r.Text, "runs") || r.Value <= 0 {
		t.Errorf("the adopted progress: %+v", r)
	}

	// Refused: another sweep's outcome, and bytes that do not decode or
	// say what no sweep of these settings could.
	if err := page.Adopt(key+"x", data, false); err == nil {
		t.Error("an outcome for another sweep was adopted")
	}
	with := func(i int, v float64) []byte { // data with float i set to v
		out := bytes.Clone(data)
		binary.LittleEndian.PutUint64(out[8*i:], math.Float64bits(v))
		return out
	}
	for name, bad := range map[string][]byte{
		"nothing": nil, "7 bytes": data[:7], "a point short": data[:len(data)-8],
		"share of steps NaN": with(0, math.NaN()), "share of steps over 1": with(0, 1.5), "runs not whole": with(1, 2.5),
		"runs beyond the sweep": with(1, 1e9), "count infinite": with(2, math.Inf(1)), "count negative": with(2, -1),
		"first point elsewhere": with(3, 12345), "seeds not the sweep's": with(3+10, 99), "halted beyond the seeds": with(3+11, 5),
		"an error message not UTF-8": append(bytes.Clone(data), 0xff, 0xfe),
	} {
		if err := page.Adopt(key, bad, false); err == nil {
			t.Errorf("an outcome with %s was adopted", name)
		}
	}
	if got, want := scenetest.Seen(page), scenetest.Seen(worker); !bytes.Equal(got, want) {
		t.Error("a refused outcome changed what the page shows")
	}

	// Finished: the page is done, and shows what it would have computed.
	worker.Settle()
	data, done = worker.Outcome()
	if !done {
		t.Fatal("the finished sweep's outcome is not done")
	}
	if err := page.Adopt(key, data, done); err != nil {
		t.Fatal(err)
	}
	if page.Busy() || page.RemoteKey() != "" {
		t.Error("the page still computes after a finished outcome")
	}
	local := viz.NewApp(New())
	if err := local.Restore(state); err != nil {
		t.Fatal(err)
	}
	local.Settle()
	if got, want := scenetest.Seen(page), scenetest.Seen(local); !bytes.Equal(got, want) {
		t.Errorf("the page after adopting shows %d bytes unlike a copy that computed itself, %d", len(got), len(want))
	}
}

// A held sweep whose settings change is computed here again unless held
// anew: a failed worker, or a new setting, never leaves the page waiting.
func TestRatesHoldLapses(t *testing.T) {
	defer func(c func() float64) { viz.Clock = c }(viz.Clock)
	var now float64
	viz.Clock = func() float64 { now += 1; return now }
	page := viz.NewApp(New())
	key := page.RemoteKey()
	page.Hold(key)
	page.Tick(1.0 / 60)
	if page.Scene().(*Scene).job != nil {
		t.Fatal("the held sweep started here")
	}
	if err := page.Set("seeds", "4"); err != nil {
		t.Fatal(err)
	}
	if page.RemoteKey() == key {
		t.Fatal("new settings kept the sweep's key")
	}
	page.Tick(1.0 / 60)
	if page.Scene().(*Scene).job == nil {
		t.Error("the sweep for new settings did not start here")
	}
	page.Hold(page.RemoteKey())
	page.Hold("")
	page.Tick(1.0 / 60)
	if r := page.Scene().(*Scene); r.simFrac == 0 {
		t.Error("released, the sweep did not go on here")
	}
}

// A worker that fails after the page adopted some of its points: released,
// the page computes the sweep from its start and shows what a copy that
// never held shows.
func TestRatesReleasedAfterAPartialOutcome(t *testing.T) {
	defer func(c func() float64) { viz.Clock = c }(viz.Clock)
	var now float64
	viz.Clock = func() float64 { now += 1; return now }
	const state = "scene=rates&seeds=4"
	open := func() *viz.App {
		a := viz.NewApp(New())
		if err := a.Restore(state); err != nil {
			t.Fatal(err)
		}
		return a
	}
	worker, page, local := open(), open(), open()
	key := page.RemoteKey()
	page.Hold(key)
	for len(worker.Scene().(*Scene).points) < 2 {
		worker.Tick(1.0 / 60)
	}
	data, done := worker.Outcome()
	if err := page.Adopt(key, data, done); err != nil {
		t.Fatal(err)
	}
	page.Hold("")
	page.Settle()
	local.Settle()
	if got, want := scenetest.Seen(page), scenetest.Seen(local); !bytes.Equal(got, want) {
		t.Errorf("released after two adopted points, the page shows %d bytes unlike a copy that computed itself, %d", len(got), len(want))
	}
}
