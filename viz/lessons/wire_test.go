package lessons

import (
	"reflect"
	"testing"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/wiretest"
)

// Every lesson's panel crosses to the page intact: controls, readouts and
// guarantee decode to what the app holds, at the start and at the end of
// its run.
func TestPanelBuffersEveryLesson(t *testing.T) {
	var ctl, ro, gu []byte
	for _, l := range modules() {
		a := viz.NewApp(l.New())
		name := a.Scene().Info().Name
		for _, when := range []string{"start", "end"} {
			if when == "end" {
				a.Key("End")
			}
			ctl = viz.EncodeControls(a.Controls(), ctl)
			if got, want := wiretest.Controls(t, ctl), a.Controls(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s at the %s: controls decode as\n%+v\nwant\n%+v", name, when, got, want)
			}
			ro = viz.EncodeReadouts(a.Readouts(), ro)
			if got, want := wiretest.Readouts(t, ro), a.Readouts(); !reflect.DeepEqual(got, want) {
				t.Errorf("%s at the %s: readouts decode as\n%+v\nwant\n%+v", name, when, got, want)
			}
			g := a.Guarantee()
			gu = viz.EncodeGuarantee(g, gu)
			got, _, certified, mode := wiretest.Guarantee(t, gu)
			if certified != g.Certified() || mode != g.Mode.String() || got.Note != g.Note ||
				!reflect.DeepEqual(got.Preconditions, g.Preconditions) {
				t.Errorf("%s at the %s: guarantee decodes as %+v (certified %v, %s), want %+v", name, when, got, certified, mode, g)
			}
		}
	}
}
