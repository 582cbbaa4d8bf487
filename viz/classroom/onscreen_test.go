package classroom

import (
	"regexp"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/viz"
)

// shownText is everything the lesson says at state: its figure's words,
// its readouts and its description.
func shownText(t *testing.T, lesson, state string) string {
	t.Helper()
	app, err := open(lesson, state, "")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	l, _ := app.Frame(1280, 800)
	for _, it := range l.Items {
		if it.Kind == viz.Text {
			b.WriteString(it.Text + "\n")
		}
	}
	for _, r := range app.Readouts() {
		b.WriteString(r.Text + "\n")
	}
	b.WriteString(app.Describe())
	return b.String()
}

// No numeric or predict exercise of the built-in pack shows its key where
// it opens, for any of three students: the readout's text at the key's
// state appears nowhere in the figure, the readouts or the description at
// the exercise's state.
func TestBuiltinKeysAreNotOnScreen(t *testing.T) {
	base, err := exercise.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	var all []exercise.Exercise
	for _, student := range []string{"", "Ada", "Bob"} {
		all = append(all, base.For(student).Exercises...)
	}
	for _, e := range all {
		if (e.Kind != exercise.Numeric && e.Kind != exercise.Predict) || e.Answer.Readout == "" {
			continue
		}
		rs, err := Lab{}.Readouts(e.Lesson, e.KeyState(), "", e.Kind == exercise.Predict)
		if err != nil {
			t.Fatal(err)
		}
		var key string
		for _, r := range rs {
			if r.Name == e.Answer.Readout {
				key = r.Text
			}
		}
		if key == "" {
			t.Errorf("%s: the key's readout has no text", e.ID)
			continue
		}
		// As a whole token: a κ of 3 is not on screen in "0.35". A key of
		// one or two characters is on screen as what something equals
		// ("κ = 3") or as the readout's own text: "3" alone is in "step 3".
		pattern := `(^|[^0-9.])` + regexp.QuoteMeta(key) + `($|[^0-9])`
		if len(key) <= 2 {
			pattern = `(^|\n)` + regexp.QuoteMeta(key) + `\n|=\s*` + regexp.QuoteMeta(key) + `($|[^0-9.])`
		}
		if shown := shownText(t, e.Lesson, e.State); regexp.MustCompile(pattern).MatchString(shown) {
			t.Errorf("%s: the key %q is on screen where the exercise opens", e.ID, key)
		}
	}
}

// No find-the-bug exercise of the built-in pack names its broken variant
// where it opens: not in the figure, the readouts or the description, nor
// in the help the settings show (the audit lab's pair help says which
// variant each preset pair catches, and its hint which variant to try on
// the pair shown), for any of three students.
func TestBuiltinBugsAreNotOnScreen(t *testing.T) {
	base, err := exercise.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, student := range []string{"", "Ada", "Bob"} {
		for _, e := range base.For(student).Exercises {
			if e.Kind != exercise.FindTheBug {
				continue
			}
			n++
			app, err := open(e.Lesson, e.State, "")
			if err != nil {
				t.Fatal(err)
			}
			shown := shownText(t, e.Lesson, e.State)
			for _, c := range app.Controls() {
				shown += "\n" + c.Help // the chosen choice's help first
			}
			// As a whole name, quoted or not ("keep-all", not "keep-all-ish").
			if regexp.MustCompile(`(^|[^\w-])` + regexp.QuoteMeta(e.Answer.Mutant) + `($|[^\w-])`).MatchString(shown) {
				t.Errorf("%s: the broken variant %q is named where the exercise opens (%s)", e.ID, e.Answer.Mutant, e.State)
			}
		}
	}
	if n < 3 {
		t.Errorf("%d find-the-bug exercises: the built-in pack has 3 per student", n)
	}
}
