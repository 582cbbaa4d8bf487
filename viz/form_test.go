package viz

import (
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

func TestFormBindsAndChecks(t *testing.T) {
	var (
		n     = 20
		eps   = 1.0
		on    = false
		kind  = "a"
		seed  = uint64(3)
		mode  = privacy.Paper
		st    = rng.New(5)
		fired = 0
	)
	f := Form{
		Int(&n, Control{Name: "n", Label: "users n", Kind: Slider, Min: 2, Max: 100, Log: true}),
		Float(&eps, Control{Name: "eps", Label: "ε", Kind: Slider, Min: 0.1, Max: 10}),
		Bool(&on, Control{Name: "lens", Label: "lens", Key: "l"}),
		Choose(&kind, Control{Name: "kind", Label: "data", Choices: []string{"a", "b", "c"}}),
		Seed(&seed),
		Mode(&mode, privacy.Paper, privacy.Sound).Explained("which constants"),
		Action(Control{Name: "go", Label: "go"}, func() error { fired++; return nil }),
	}
	cs := f.Controls()
	want := map[string]string{"n": "20", "eps": "1", "lens": "false", "kind": "a", "seed": "3", "mode": "paper"}
	for _, c := range cs {
		if v, ok := want[c.Name]; ok && c.Value != v {
			t.Errorf("%s = %q, want %q", c.Name, c.Value, v)
		}
	}
	if cs[0].Step != 1 || cs[2].Kind != Toggle || cs[3].Kind != Choice || cs[5].Help != "paper: the constants as the paper prints them (where its proof has gaps, the guarantee says which). which constants" || cs[6].Kind != Button {
		t.Errorf("declared controls %+v", cs)
	}
	for _, c := range [][2]string{{"n", "50"}, {"eps", "2.5"}, {"lens", ""}, {"kind", "c"}, {"seed", "9"}, {"mode", "sound"}, {"go", ""}} {
		if err := f.Set(c[0], c[1]); err != nil {
			t.Errorf("Set(%s, %q): %v", c[0], c[1], err)
		}
	}
	// The help describes what is chosen.
	if h := f.Controls()[5].Help; !strings.HasPrefix(h, "sound: the same algorithm") {
		t.Errorf("mode help after choosing sound: %q", h)
	}
	if n != 50 || eps != 2.5 || !on || kind != "c" || seed != 9 || mode != privacy.Sound || fired != 1 {
		t.Errorf("bound values n=%d eps=%v on=%v kind=%s seed=%d mode=%v fired=%d", n, eps, on, kind, seed, mode, fired)
	}
	if err := f.Set("lens", "false"); err != nil || on {
		t.Errorf("lens false: %v, %v", err, on)
	}
	for _, c := range [][3]string{
		{"n", "20.5", "users n = 20.5: a count is a whole number"},
		{"n", "1", "outside 2 … 100"},
		{"eps", "x", "is not a number"},
		{"lens", "maybe", "use true or false"},
		{"kind", "d", `data "d": choose a, b or c`},
		{"seed", "-1", "whole number from 0"},
		{"mode", "teaching", `mode "teaching": use paper or sound`},
		{"nope", "1", `no control "nope"`},
	} {
		err := f.Set(c[0], c[1])
		if err == nil || !strings.Contains(err.Error(), c[2]) {
			t.Errorf("Set(%s, %q) = %v, want an error with %q", c[0], c[1], err, c[2])
		}
	}
	if n != 50 || eps != 2.5 || kind != "c" || seed != 9 || mode != privacy.Sound {
		t.Error("a refused value changed a bound value")
	}
	// A scene whose noise lives in its streams gets fresh ones per seed.
	g := Form{StreamsSeed(&st).Labelled("noise seed")}
	if c := g.Controls()[0]; c.Value != "5" || c.Label != "noise seed" {
		t.Errorf("streams seed control %+v", c)
	}
	if err := g.Set("noise seed", "1"); err == nil {
		t.Error("fields are found by name, not label")
	}
	if err := g.Set("seed", "8"); err != nil || st.Seed() != 8 {
		t.Errorf("seed 8: %v, streams seeded %d", err, st.Seed())
	}
}

func TestNumbersField(t *testing.T) {
	xs := []float64{1, 2.5}
	f := Form{Numbers(&xs, Control{Name: "q", Label: "query values"}, "query", 3)}
	if c := f.Controls()[0]; c.Value != "1,2.5" || c.Kind != TextField {
		t.Errorf("control %+v", c)
	}
	if err := f.Set("q", " -3, 4 ,5e2"); err != nil || len(xs) != 3 || xs[0] != -3 || xs[2] != 500 {
		t.Errorf("set: %v, %v", err, xs)
	}
	for v, want := range map[string]string{"1,2,3,4": "4 values, at most 3", "1,x": `query 2: "x" is not a number`, "2e7": "query 1: \"2e7\" is not a number within ±10⁶", "": `query 1: ""`} {
		if err := f.Set("q", v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Set(%q) = %v, want %q", v, err, want)
		}
	}
	if len(xs) != 3 || xs[1] != 4 {
		t.Errorf("a refused list changed the values: %v", xs)
	}
}

// NumberAtMost is at most x, written exactly by FormatNumber, and within
// the sixth digit of x.
func TestNumberAtMost(t *testing.T) {
	for _, x := range []float64{1.0 / 3, 2.0 / 3, 1 / 1.5, 1.0 / 7, 0.1, 1, 123456.7, 1e-7 / 3, 0.999999999, 5e300 / 3} {
		y := NumberAtMost(x)
		back, err := strconv.ParseFloat(FormatNumber(y), 64)
		if !(y <= x) || err != nil || back != y || !(x-y <= 1e-5*x) {
			t.Errorf("NumberAtMost(%v) = %v, written %q", x, y, FormatNumber(y))
		}
	}
}
