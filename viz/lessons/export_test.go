package lessons

import (
	"bytes"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/viz"
)

// The browser exports a trace from a separate module that holds every lesson:
// it gets the lesson's state and the dataset as shown (after drags) and must
// produce the trace the lesson itself would.
func TestExportTraceOfRebuildsTheRun(t *testing.T) {
	traced, loaded, stability := 0, 0, false
	defer func() {
		if !stability {
			t.Error("no stability lesson among the lessons")
		}
		// Lessons 3–7, 9, 10 and 12 have runs; outlier removal, DP-SGD and
		// phased ERM have draggable data of their own.
		if traced < 8 || loaded < 3 {
			t.Errorf("checked %d lessons with a trace, %d with loadable data", traced, loaded)
		}
	}()
	for _, l := range Lessons() {
		live := viz.NewApp(l.New())
		live.Settle() // a run computed between frames (lesson 12's) is there to export
		name := live.Scene().Info().Name
		if _, ok := live.Scene().(viz.Exporter); !ok {
			continue
		}
		tr, csv := live.Exportable()
		if name == "stability" {
			stability = true
			if !tr || !csv { // a lesson with a run and users of its own offers both
				t.Errorf("stability exportable: trace %v, csv %v", tr, csv)
			}
		}
		if !tr {
			continue
		}
		traced++
		// Move one user, as a drag would, where the lesson's data is its own.
		if ld, ok := live.Scene().(viz.DatasetLoader); ok {
			loaded++
			d := ld.Dataset().Clone()
			for k := range d.Users[2].Points {
				d.Users[2].Points[k] += 0.3
			}
			if err := ld.LoadDataset(d); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		var data []byte
		if csv {
			var err error
			if data, err = live.ExportCSV(); err != nil {
				t.Fatal(err)
			}
		}
		want, err := live.ExportTrace()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		exporter := viz.NewApp(All()...)
		got, err := exporter.ExportTraceOf(live.State(), data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: the export module's trace differs from the lesson's (%d vs %d bytes)", name, len(got), len(want))
		}
		// Data that is not what the lesson shows is refused, not exported.
		if ld, ok := live.Scene().(viz.DatasetLoader); ok {
			d := ld.Dataset().Clone()
			d.Users = d.Users[:len(d.Users)-1]
			var buf bytes.Buffer
			if err := dataset.WriteCSV(&buf, d); err != nil {
				t.Fatal(err)
			}
			if _, err := viz.NewApp(All()...).ExportTraceOf(live.State(), buf.Bytes()); err == nil || !strings.Contains(err.Error(), "users") {
				t.Errorf("%s: a dataset with a user missing was exported (err %v)", name, err)
			}
		}
	}
}
