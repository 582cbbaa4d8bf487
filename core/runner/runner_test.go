package runner

import (
	"context"
	"errors"
	"flag"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/scenario"
)

// The same refusal names the flag on a command line and the field in a
// scenario; nothing else in the message changes.
func TestNamed(t *testing.T) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var c Config
	c.Register(fs)
	if err := fs.Parse([]string{"--mech", "dp-sgd", "--eps", "8", "--delta", "1e-5", "--rk", "1", "--steps", "0", "--theta0", "1,x"}); err != nil {
		t.Fatal(err)
	}
	c.Given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { c.Given[f.Name] = true })
	_, flagErr := c.Job()
	if flagErr == nil || !strings.Contains(flagErr.Error(), "--steps = 0: choose 1 to 10⁷ steps") {
		t.Fatalf("flags: %v", flagErr)
	}
	if got := field("target-sens") + " " + field("p-exp") + " " + field("mech") + " " + field("max-rows"); got != "params.sens params.p_exp mechanism --max-rows" {
		t.Errorf("fields: %s", got)
	}
	s, err := scenario.Decode(strings.NewReader(`{"version": 1, "generator": {"kind": "gaussian", "n": 10, "m": 1, "d": 1},
		"mechanism": "dp-sgd", "params": {"eps": 8, "delta": 1e-5, "rk": 1, "theta0": [1, 2]}}`))
	if err != nil {
		t.Fatal(err)
	}
	c2 := FromScenario(s)
	c2.theta0 = "1,x" // what no scenario can hold: a flag's text
	if _, err := c2.Job(); err == nil || err.Error() != `params.theta0: "x" is not a finite number` {
		t.Errorf("scenario: %v", err)
	}
}

// A cancelled run is still a cancellation after its message is renamed.
func TestNamedKeepsCancellation(t *testing.T) {
	s, err := scenario.Decode(strings.NewReader(`{"version": 1, "generator": {"kind": "gaussian", "n": 50, "m": 2, "d": 2},
		"mechanism": "dp-sgd", "params": {"eps": 8, "delta": 1e-5, "rk": 1, "steps": 100}}`))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := s.Build()
	job, err := FromScenario(s).Job()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := job.Run(ctx, data, rng.New(1), nil); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled run: %v", err)
	}
}

// Steps is what a run takes: the theorem's T unless given, capped per
// phase for the strongly convex localisation.
func TestSteps(t *testing.T) {
	for _, c := range []struct {
		mech, params string
		want         int
	}{
		{"dp-sgd", `"rk": 1, "steps": 40`, 40},
		{"dp-sgd", `"rk": 1`, 20*20*4 + 20*4}, // m²n² + mn√d at n = 20, m = 2, d = 4 (√d = 2)
		{"dp-sgd-sc", `"rk": 1, "rx": 1, "steps": 40`, 40},
		{"orme", `"tau": 1, "queries": 7`, 7},
		{"phased-erm", `"rk": 1, "rx": 1`, 0},
	} {
		s, err := scenario.Decode(strings.NewReader(`{"version": 1, "generator": {"kind": "gaussian", "n": 20, "m": 2, "d": 4},
			"mechanism": "` + c.mech + `", "params": {"eps": 8, "delta": 1e-5, ` + c.params + `}}`))
		if err != nil {
			t.Fatal(err)
		}
		data, _ := s.Build()
		if got, err := FromScenario(s).Steps(data); err != nil || got != c.want {
			t.Errorf("%s %s: %d steps (%v), want %d", c.mech, c.params, got, err, c.want)
		}
	}
}
