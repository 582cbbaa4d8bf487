package runner

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/scenario"
)

// job binds a command line as `uldp run` does and asks for its job.
func job(args ...string) error {
	var c Config
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.Register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	c.Given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { c.Given[f.Name] = true })
	_, err := c.Job()
	return err
}

// Every numeric parameter, on every mechanism that takes it, refuses NaN
// and both infinities, and the values its meaning forbids (written out
// here, not read from the table under test), naming itself.
func TestEveryParameterRefusesBadNumbers(t *testing.T) {
	// What each parameter must refuse beyond NaN and ±Inf.
	alsoBad := map[string][]string{
		"eps": {"0", "-1"}, "delta": {"0", "1", "-1", "2"}, "target-sens": {"0", "-1"}, "kappa": {"0", "-1", "1000000000"},
		"beta": {"0", "-1", "0.5"}, "mu": {"0", "-1"}, "rk": {"0", "-1"}, "rx": {"-1"}, "lambda": {"0", "-1"},
		"phases": {"0", "-1", "1000000000"}, "tau": {"0", "-1"}, "queries": {"0", "-1", "1000000000"},
		"steps": {"0", "-1", "100000000"}, "eta": {"0", "-1"}, "smoothing": {"-1"}, "batch": {"0", "-1", "100000000"},
		"r": {"0", "-1"}, "domain": {"0", "-1"}, "trim": {"-1"}, "threshold": {}, "huber": {"0", "-1"},
		"groups": {"0", "-1", "1000000000"}, "p-exp": {"0", "-1", "1e308"}, "q-exp": {"0", "-1", "1e308"},
		"radius": {"0", "-1"}, "lipschitz": {"0", "-1"},
	}
	checked := 0
	for _, p := range params {
		if p.value == nil {
			continue
		}
		bad, ok := alsoBad[p.name]
		if !ok {
			t.Errorf("--%s has a range but no bad values here: add them", p.name)
			continue
		}
		for _, m := range p.mechs {
			for _, v := range append([]string{"NaN", "Inf", "-Inf"}, bad...) {
				args := []string{"--mech", m, "--eps", "1", "--delta", "1e-5", "--" + p.name, v}
				if p.name == "huber" {
					args = append(args, "--loss", "huber")
				}
				err := job(args...)
				if err == nil || !strings.Contains(err.Error(), p.name) {
					t.Errorf("%s --%s %s: %v, want a refusal naming %s", m, p.name, v, err, p.name)
				}
				checked++
			}
		}
	}
	if checked < 300 {
		t.Errorf("checked %d command lines: the table is thinner than it should be", checked)
	}
}

// A parameter a mechanism does not take is refused, not ignored: the
// strongly convex localisation takes neither a step size nor τ, λ, phases
// or smoothing (dp-sgd does), and no mechanism but robust SGD's takes r.
func TestParametersThatDoNotApplyAreRefused(t *testing.T) {
	for _, c := range [][]string{
		{scenario.MechDPSGDSC, "--eta", "0.1"},
		{scenario.MechDPSGDSC, "--tau", "1"},
		{scenario.MechDPSGDSC, "--lambda", "1"},
		{scenario.MechDPSGDSC, "--phases", "2"},
		{scenario.MechDPSGDSC, "--smoothing", "0.1"},
		{scenario.MechORME, "--rk", "1"},
		{scenario.MechPhasedERM, "--r", "1"},
		{scenario.MechOIR, "--batch", "4"},
		{scenario.MechAccel, "--groups", "4"},
		{"deloutputpert", "--steps", "10"},
	} {
		err := job("--mech", c[0], "--eps", "1", "--delta", "1e-5", c[1], c[2])
		if err == nil || !strings.Contains(err.Error(), c[1]+" does not apply to "+c[0]) {
			t.Errorf("%s %s %s: %v, want it refused as not applying", c[0], c[1], c[2], err)
		}
	}
	// --huber without the Huber loss is refused where the loss could be Huber's.
	if err := job("--mech", scenario.MechRobustSGD, "--eps", "1", "--delta", "1e-5", "--huber", "2"); err == nil || !strings.Contains(err.Error(), "add --loss huber") {
		t.Errorf("--huber without --loss huber: %v", err)
	}
	// Every parameter in the table is taken by some mechanism and refused
	// by the others it is given to.
	for _, p := range params {
		if len(p.mechs) == 0 {
			t.Errorf("--%s applies to no mechanism", p.name)
		}
		for _, m := range Runnable {
			if slices.Contains(p.mechs, m) || p.name == "mode" {
				continue
			}
			err := job("--mech", m, "--eps", "1", "--delta", "1e-5", "--"+p.name, "1")
			if err == nil || !strings.Contains(err.Error(), "does not apply") {
				t.Errorf("%s --%s 1: %v, want it refused", m, p.name, err)
			}
		}
	}
}
