package api

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// scen is a scenario drawn by a generator, with mechanism and params.
func scen(gen, mech, params string) string {
	return `{"version": 1, "generator": ` + gen + `, "mechanism": "` + mech + `", "params": ` + params + `, "seed": 3}`
}

const orme = `{"version": 1, "generator": {"kind": "outliers", "n": 30, "m": 2, "d": 2, "outliers": 3},
	"mechanism": "orme", "params": {"eps": 8, "delta": 1e-5, "tau": 0.5, "queries": 3}, "mode": "paper", "seed": 7}`

func TestRun(t *testing.T) {
	code, v, _ := do(t, "POST", "/api/run", orme)
	if code != 200 {
		t.Fatalf("run: %d %v", code, v)
	}
	res := v["result"].(map[string]any)
	if res["mechanism"] != "orme" || res["seed"] != 7.0 || len(res["neighbour_counts"].([]any)) != 30 {
		t.Errorf("result %v", res)
	}
	tr := v["trace"].(map[string]any)
	kinds := tr["kinds"].([]any)
	sum := 0.0
	for _, k := range kinds {
		sum += k.(map[string]any)["count"].(float64)
	}
	if tr["steps"].(float64) < 3 || sum != tr["steps"] || tr["last"] == "" {
		t.Errorf("trace summary %v", tr)
	}
	if len(res["trace"].(map[string]any)["steps"].([]any)) != int(sum) {
		t.Errorf("the summary counts %v steps, the result's trace has %d", sum, len(res["trace"].(map[string]any)["steps"].([]any)))
	}
	// The same scenario runs the same: a run depends on its seed only.
	if _, again, _ := do(t, "POST", "/api/run", orme); fmt.Sprint(again) != fmt.Sprint(v) {
		t.Errorf("two runs of one scenario differ")
	}
	// DP-SGD records its trace only when asked: no summary.
	code, v, _ = do(t, "POST", "/api/run", scen(`{"kind": "gaussian", "n": 50, "m": 2, "d": 2}`, "dp-sgd", `{"eps": 8, "delta": 1e-5, "rk": 1, "steps": 20}`))
	if code != 200 || v["trace"] != nil || v["result"].(map[string]any)["settings"].(map[string]any)["steps"] != 20.0 {
		t.Errorf("dp-sgd: %d %v", code, v)
	}
}

// Every refusal is JSON that names what is wrong and what to change.
func TestRunRefuses(t *testing.T) {
	gauss := `{"kind": "gaussian", "n": 50, "m": 2, "d": 2}`
	for _, c := range []struct {
		name, body string
		code       int
		want       []string
	}{
		{"malformed JSON", `{"version": 1,`, 400, []string{"scenario:"}},
		{"not a scenario", `[1, 2]`, 400, []string{"scenario:"}},
		{"a misspelt field", strings.Replace(orme, `"tau"`, `"tua"`, 1), 400, []string{"params", `"tua"`, `did you mean "tau"`}},
		{"a value out of range", strings.Replace(orme, `"eps": 8`, `"eps": -1`, 1), 400, []string{"params.eps"}},
		{"a wrong type", strings.Replace(orme, `"queries": 3`, `"queries": "3"`, 1), 400, []string{"params.queries"}},
		{"huge numbers", strings.Replace(orme, `"eps": 8`, `"eps": 1e999`, 1), 400, []string{"scenario:"}},
		{"deep nesting", `{"version": 1, "params": ` + strings.Repeat(`{"a": `, 10_000) + `1` + strings.Repeat(`}`, 10_000) + `}`, 400, []string{"scenario:"}},
		{"trailing data", orme + `{}`, 400, []string{"scenario:"}},
		{"too many coordinates", scen(`{"kind": "gaussian", "n": 20000, "m": 5, "d": 2}`, "orme", `{"eps": 8, "delta": 1e-5, "tau": 0.5}`), 422,
			[]string{"200000 coordinates", "at most 100000", "n·m·d", "fewer users"}},
		{"the theorem's steps", scen(gauss, "dp-sgd", `{"eps": 8, "delta": 1e-5, "rk": 1}`), 422, []string{"steps: /api/run takes at most 1000", "set params.steps"}},
		{"too many queries", scen(gauss, "orme", `{"eps": 8, "delta": 1e-5, "tau": 0.5, "queries": 1001}`), 422, []string{"1001 steps", "params.queries"}},
		{"steps × users", scen(`{"kind": "gaussian", "n": 1000, "m": 1, "d": 2}`, "dp-sgd", `{"eps": 8, "delta": 1e-5, "rk": 1, "steps": 500}`), 422,
			[]string{"500 steps × 1000 users", "at most 200000", "params.steps"}},
		{"a parameter the mechanism refuses", scen(gauss, "robust-sgd", `{"eps": 8, "delta": 1e-5, "batch": 5, "r": 1, "eta": 0.5, "domain": 2, "trim": 2}`), 422,
			[]string{"params.trim", "params.stat trimmed"}},
	} {
		code, v, _ := do(t, "POST", "/api/run", c.body)
		msg, _ := v["error"].(string)
		if code != c.code {
			t.Errorf("%s: %d %q, want %d", c.name, code, msg, c.code)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q does not say %q", c.name, msg, w)
			}
		}
		if strings.Contains(strings.ReplaceAll(msg, "uldp run --scenario", ""), "--") {
			t.Errorf("%s: %q names a command-line flag, not the scenario's field", c.name, msg)
		}
	}
	if code, v, h := do(t, "GET", "/api/run", ""); code != 405 || h.Get("Allow") != "POST" {
		t.Errorf("GET /api/run: %d %v", code, v)
	}
	big := strings.Replace(orme, `"seed": 7`, `"seed": 7, "description": "`+strings.Repeat("x", MaxBody)+`"`, 1)
	if code, v, _ := do(t, "POST", "/api/run", big); code != 413 {
		t.Errorf("an oversized scenario: %d %v", code, v)
	}
}

// A run past RunTimeout is stopped and answered 503, long before it would
// have finished.
func TestRunTimeout(t *testing.T) {
	defer func(d time.Duration) { RunTimeout = d }(RunTimeout)
	RunTimeout = 200 * time.Millisecond
	// 1000 DP-SGD steps, each scoring 200² pairs in ℝ^500: tens of seconds.
	slow := scen(`{"kind": "gaussian", "n": 200, "m": 1, "d": 500}`, "dp-sgd", `{"eps": 8, "delta": 1e-5, "rk": 1, "steps": 1000}`)
	start := time.Now()
	code, v, _ := do(t, "POST", "/api/run", slow)
	took := time.Since(start)
	if code != 503 || !strings.Contains(v["error"].(string), "limit per request") {
		t.Errorf("a slow run: %d %v", code, v)
	}
	// The run checks its context every step: it stops within a step or
	// two of the deadline, well under the seconds it would take.
	if took > 5*time.Second {
		t.Errorf("the slow run answered after %v: the deadline did not stop it", took)
	}
}
