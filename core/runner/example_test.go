package runner_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/scenario"
)

// A scenario's run, as `uldp run --scenario` and POST /api/run make it.
func ExampleFromScenario() {
	s, err := scenario.Decode(strings.NewReader(`{"version": 1,
		"generator": {"kind": "outliers", "n": 16, "m": 1, "d": 1, "spread": 0.05, "outliers": 3, "separation": 10},
		"mechanism": "deloutputpert", "params": {"eps": 8, "delta": 0.1, "sens": 0.1},
		"mode": "teaching", "seed": 42}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	data, err := s.Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	job, err := runner.FromScenario(s).Job()
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, tr, err := job.Run(context.Background(), data, rng.New(s.Seed), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	del := rep.(*runner.DelReport)
	fmt.Println(del.Mechanism, "removed", del.Removed, "in", len(tr.Steps), "steps")
	// Output: deloutputpert removed [14 15 16] in 5 steps
}

// A parameter the mechanism refuses is named as the scenario names it.
func ExampleConfig_Job() {
	s, _ := scenario.Decode(strings.NewReader(`{"version": 1,
		"generator": {"kind": "gaussian", "n": 40, "m": 2, "d": 2},
		"mechanism": "robust-sgd", "params": {"eps": 8, "delta": 1e-5, "batch": 5, "r": 1, "eta": 0.5, "domain": 2, "trim": 2}}`))
	_, err := runner.FromScenario(s).Job()
	fmt.Println(err)
	// Output: params.trim 2: only params.stat trimmed trims; drop params.trim or add params.stat trimmed
}
