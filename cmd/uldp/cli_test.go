package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/scenario"
)

// bin is the uldp binary built once for all tests: the tests run it as a
// user would, on real files, and check stdout, stderr and the exit status.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "uldp-cli-test")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "uldp")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		panic("building uldp: " + err.Error())
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

func uldp(t *testing.T, args ...string) result {
	t.Helper()
	return runCmd(t, exec.Command(bin, args...))
}

// runCmd runs cmd and returns its output and exit status.
func runCmd(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{out.String(), errb.String(), code}
}

// ok runs a command that must succeed and decodes its JSON output.
func ok(t *testing.T, v any, args ...string) {
	t.Helper()
	r := uldp(t, args...)
	if r.code != 0 {
		t.Fatalf("uldp %v: exit %d\n%s", args, r.code, r.stderr)
	}
	if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
		t.Fatalf("uldp %v: output is not JSON: %v\n%s", args, err, r.stdout)
	}
}

// bad runs a command that must fail with status 2 and a message on stderr
// containing want.
func bad(t *testing.T, want string, args ...string) {
	t.Helper()
	r := uldp(t, args...)
	if r.code != 2 || !strings.Contains(r.stderr, want) || r.stdout != "" {
		t.Errorf("uldp %v: exit %d, stderr %q, stdout %q; want exit 2 with %q", args, r.code, r.stderr, r.stdout, want)
	}
}

func TestTDLap(t *testing.T) {
	var out struct {
		Kappa      int       `json:"kappa"`
		Normaliser float64   `json:"normaliser"`
		PMF        []float64 `json:"pmf"`
		CDF        []float64 `json:"cdf"`
	}
	ok(t, &out, "tdlap", "--eps", "0.5", "--delta", "0.1370343")
	// Spec 000-002 §9.1, row (ε, δ) = (1, 0.5): κ = 5, Z = 3.829921, pmf(κ) = 0.261102.
	if out.Kappa != 5 || !(math.Abs(out.Normaliser-3.829921) <= 5e-7) || len(out.PMF) != 11 || !(math.Abs(out.PMF[5]-0.261102) <= 5e-7) || out.CDF[10] != 1 {
		t.Errorf("tdlap: %+v", out)
	}
	r := uldp(t, "tdlap", "--eps", "4", "--kappa", "3", "--format", "text")
	if r.code != 0 || !strings.Contains(r.stdout, "κ = 3") || !strings.Contains(r.stdout, "chosen by hand") {
		t.Errorf("text output:\n%s", r.stdout)
	}
	bad(t, "exactly one of --delta", "tdlap", "--eps", "1")
	bad(t, "exactly one of --delta", "tdlap", "--eps", "1", "--delta", "0.1", "--kappa", "3")
	bad(t, "eps = 0", "tdlap", "--eps", "0", "--delta", "0.1")
	bad(t, "delta = 2", "tdlap", "--eps", "1", "--delta", "2")
	bad(t, "invalid value", "tdlap", "--eps", "abc", "--delta", "0.1")
	bad(t, "missing --eps", "tdlap", "--delta", "0.1")
	bad(t, "exceeds the cap", "tdlap", "--eps", "1e-9", "--delta", "1e-9")
}

func TestCalibrate(t *testing.T) {
	var del struct {
		Scale float64 `json:"scale"`
		Kappa int     `json:"kappa"`
		Valid bool    `json:"valid"`
		Steps []struct {
			Symbol string  `json:"symbol"`
			Value  float64 `json:"value"`
		} `json:"steps"`
	}
	ok(t, &del, "calibrate", "--mech", "deloutputpert", "--eps", "8", "--delta", "0.1", "--sens", "0.1")
	if !(math.Abs(del.Scale-3.182084) <= 5e-7) || del.Kappa != 3 || del.Valid || len(del.Steps) != 7 {
		t.Errorf("deloutputpert P1: %+v", del)
	}
	var g struct {
		Mechanism, Formula, Validity, Warning string
		Scale                                 float64
		Valid                                 bool
	}
	ok(t, &g, "calibrate", "--mech", "gaussian", "--eps", "10", "--delta", "0.3", "--sens", "1")
	if g.Valid || !strings.Contains(g.Warning, "use analytic-gaussian") || g.Validity == "" {
		t.Errorf("classical Gaussian outside ε < 1: %+v", g)
	}
	ok(t, &g, "calibrate", "--mech", "analytic-gaussian", "--eps", "3", "--delta", "1e-5", "--sens", "1")
	if !g.Valid || !(math.Abs(g.Scale-1.3906) <= 1e-4) {
		t.Errorf("analytic: %+v", g)
	}
	ok(t, &g, "calibrate", "--mech", "laplace", "--eps", "0.5", "--sens", "2")
	if g.Scale != 4 {
		t.Errorf("laplace: %+v", g)
	}
	bad(t, "--delta does not apply to laplace", "calibrate", "--mech", "laplace", "--eps", "1", "--delta", "0.1", "--sens", "1")
	bad(t, "missing --delta", "calibrate", "--mech", "gaussian", "--eps", "1", "--sens", "1")
	bad(t, `mechanism "fourier"`, "calibrate", "--mech", "fourier", "--eps", "1", "--delta", "0.1", "--sens", "1")
	bad(t, "sensitivity", "calibrate", "--mech", "gaussian", "--eps", "1", "--delta", "0.1", "--sens", "-1")
	if r := uldp(t, "calibrate", "--mech", "deloutputpert", "--eps", "1", "--delta", "1e-5", "--sens", "1", "--format", "text"); !strings.Contains(r.stdout, "κ") || !strings.Contains(r.stdout, "3174.59") {
		t.Errorf("text derivation:\n%s", r.stdout)
	}
}

func TestCompose(t *testing.T) {
	var c struct {
		Total struct{ Eps, Delta float64 } `json:"total"`
		Basic struct{ Eps float64 }        `json:"basic"`
		Rho   float64                      `json:"rho"`
	}
	ok(t, &c, "compose", "--rule", "advanced", "--eps", "0.1", "--k", "100", "--delta-slack", "1e-5")
	if !(math.Abs(c.Total.Eps-5.850235) <= 1e-5) || !(math.Abs(c.Basic.Eps-10) <= 1e-12) {
		t.Errorf("advanced: %+v", c)
	}
	ok(t, &c, "compose", "--rule", "basic", "--eps", "0.5", "--delta", "1e-6", "--k", "4")
	if c.Total.Eps != 2 || !(math.Abs(c.Total.Delta-4e-6) <= 1e-18) {
		t.Errorf("basic: %+v", c)
	}
	ok(t, &c, "compose", "--rule", "zcdp", "--eps", "0.01", "--k", "1000", "--delta-slack", "1e-6")
	if !(math.Abs(c.Rho-0.05) <= 1e-12) {
		t.Errorf("zcdp: %+v", c)
	}
	// An (ε, δ) step under zCDP is δ-approximately ε²/2-zCDP: 3 steps of
	// (1, 10⁻⁸) give ρ = 1.5 and δ = 3·10⁻⁸ + δ', not the (1.687, 10⁻⁵)
	// an analytic-Gaussian reading claimed (unsound: see core/privacy).
	ok(t, &c, "compose", "--rule", "zcdp", "--eps", "1", "--delta", "1e-8", "--k", "3", "--delta-slack", "1e-5")
	if !(math.Abs(c.Rho-1.5) <= 1e-12) || !(math.Abs(c.Total.Delta-(3e-8+1e-5)) <= 1e-18) || !(math.Abs(c.Basic.Eps-3) <= 1e-12) {
		t.Errorf("zcdp of generic steps: %+v", c)
	}
	// A Gaussian step (--sigma) enters zCDP with its exact ρ = 1/(2·7²).
	ok(t, &c, "compose", "--rule", "zcdp", "--eps", "0.5", "--sigma", "7", "--k", "50", "--delta-slack", "1e-6")
	if !(math.Abs(c.Rho-50/98.0) <= 1e-12) || c.Total.Delta != 1e-6 {
		t.Errorf("zcdp of Gaussian steps: %+v", c)
	}
	// Without --rule, every rule side by side and the best total named.
	var all struct {
		Rules []struct {
			Rule  string
			Total struct{ Eps, Delta float64 }
		}
		Best  string
		Total struct{ Eps, Delta float64 }
	}
	ok(t, &all, "compose", "--eps", "0.1", "--k", "100", "--delta-slack", "1e-6")
	if len(all.Rules) != 4 || all.Best != "optimal" || all.Total != all.Rules[3].Total || all.Total.Eps >= all.Rules[2].Total.Eps {
		t.Errorf("comparison: %+v", all)
	}
	bad(t, "needs --delta-slack", "compose", "--rule", "advanced", "--eps", "0.1", "--k", "10")
	bad(t, "comparing the rules needs --delta-slack", "compose", "--eps", "0.1", "--k", "10")
	bad(t, "applies to advanced, zcdp and optimal only", "compose", "--rule", "basic", "--eps", "0.1", "--k", "10", "--delta-slack", "1e-6")
	bad(t, "only for δ ≥", "compose", "--eps", "0.5", "--sigma", "7", "--delta", "1e-9", "--k", "5", "--delta-slack", "1e-6")
	bad(t, "sigma = -1", "compose", "--eps", "0.5", "--sigma", "-1", "--k", "5", "--delta-slack", "1e-6")
	bad(t, "k = 0", "compose", "--rule", "basic", "--eps", "0.1", "--k", "0")
	bad(t, `rule "renyi"`, "compose", "--rule", "renyi", "--eps", "0.1", "--k", "3")
}

func TestSampleIsDeterministic(t *testing.T) {
	args := []string{"sample", "--dist", "tdlap", "--eps", "0.5", "--kappa", "5", "--n", "1000", "--seed", "7"}
	a, b := uldp(t, args...), uldp(t, args...)
	if a.code != 0 || a.stdout != b.stdout {
		t.Fatal("same seed gave different output")
	}
	var out struct {
		Seed    *uint64   `json:"seed"`
		Stream  string    `json:"stream"`
		Samples []float64 `json:"samples"`
		Mean    float64   `json:"mean"`
		Theory  struct{ Mean float64 }
	}
	if err := json.Unmarshal([]byte(a.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if *out.Seed != 7 || out.Stream != "tdlap" || len(out.Samples) != 1000 || out.Theory.Mean != 5 {
		t.Errorf("sample output: seed %v stream %q n %d", out.Seed, out.Stream, len(out.Samples))
	}
	for _, x := range out.Samples {
		if x != math.Trunc(x) || x < 0 || x > 10 {
			t.Fatalf("TDLap sample %v outside {0..10}", x)
		}
	}
	if c := uldp(t, "sample", "--dist", "tdlap", "--eps", "0.5", "--kappa", "5", "--n", "1000", "--seed", "8"); c.stdout == a.stdout {
		t.Error("seeds 7 and 8 gave the same samples")
	}
	for _, dist := range [][]string{{"laplace", "--scale", "2"}, {"gaussian", "--sigma", "3", "--mu", "1"}, {"dlaplace", "--scale", "2.5"}} {
		var o struct{ Samples []float64 }
		ok(t, &o, append([]string{"sample", "--dist"}, append(dist, "--n", "5")...)...)
		if len(o.Samples) != 5 {
			t.Errorf("%s: %d samples", dist[0], len(o.Samples))
		}
	}
	var cr struct {
		Seed   *uint64 `json:"seed"`
		Source string  `json:"source"`
	}
	ok(t, &cr, "sample", "--dist", "gaussian", "--sigma", "1", "--n", "3", "--crypto")
	if cr.Seed != nil || !strings.Contains(cr.Source, "crypto") {
		t.Errorf("crypto draw: %+v", cr)
	}
	if r := uldp(t, "sample", "--dist", "laplace", "--scale", "1", "--n", "3", "--format", "text"); r.code != 0 || strings.Count(r.stdout, "\n") != 5 {
		t.Errorf("text samples:\n%s", r.stdout)
	}
	bad(t, "--sigma does not apply to laplace", "sample", "--dist", "laplace", "--scale", "1", "--sigma", "2", "--n", "3")
	bad(t, "--n = 0", "sample", "--dist", "laplace", "--scale", "1", "--n", "0")
	bad(t, "--n = 100000000", "sample", "--dist", "laplace", "--scale", "1", "--n", "100000000")
	bad(t, "exclude each other", "sample", "--dist", "laplace", "--scale", "1", "--n", "3", "--seed", "2", "--crypto")
	bad(t, `dist "cauchy"`, "sample", "--dist", "cauchy", "--n", "3")
	bad(t, "--scale", "sample", "--dist", "dlaplace", "--scale", "-2", "--n", "3")
	bad(t, "must be a finite number > 0", "sample", "--dist", "gaussian", "--n", "3")
}

func TestScenarioValidate(t *testing.T) {
	var v struct {
		Valid     bool
		Mechanism string
		Mode      string
		Users     int
		Source    string
	}
	ok(t, &v, "scenario", "validate", "testdata/outliers.json")
	if !v.Valid || v.Mechanism != "deloutputpert" || v.Mode != "teaching" || v.Users != 16 || v.Source != "generator outliers" {
		t.Errorf("validate: %+v", v)
	}
	bad(t, "testdata/bad-eps.json: params.eps: eps = -1", "scenario", "validate", "testdata/bad-eps.json")
	bad(t, "no such file", "scenario", "validate", "testdata/missing.json")
	bad(t, "usage: uldp scenario validate", "scenario", "check", "x.json")
	bad(t, "exactly one scenario file", "scenario", "validate")
	if r := uldp(t, "scenario", "validate", "testdata/outliers.json", "--format", "text"); r.code != 0 || !strings.Contains(r.stdout, "16 users × 1 item ") {
		t.Errorf("text:\n%s", r.stdout)
	}
}

func TestDatasetGen(t *testing.T) {
	dir := t.TempDir()
	csvPath := filepath.Join(dir, "d.csv")
	var g struct{ Users, Dim int }
	ok(t, &g, "dataset", "gen", "--kind", "clusters", "--n", "12", "--m", "3", "--d", "2", "--clusters", "3", "--seed", "5", "--out", csvPath)
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dataset.ReadCSV(f, false)
	f.Close()
	if err != nil || d.N() != 12 || d.Dim != 2 || g.Users != 12 {
		t.Fatalf("generated CSV: %v", err)
	}
	// The same spec and seed written as JSON holds the same data.
	jsonPath := filepath.Join(dir, "d.json")
	ok(t, &g, "dataset", "gen", "--kind", "clusters", "--n", "12", "--m", "3", "--d", "2", "--clusters", "3", "--seed", "5", "--out", jsonPath)
	b, _ := os.ReadFile(jsonPath)
	var fromJSON dataset.Dataset
	if err := json.Unmarshal(b, &fromJSON); err != nil {
		t.Fatal(err)
	}
	if d.Users[4].Points[1] != fromJSON.Users[4].Points[1] {
		t.Error("CSV and JSON outputs differ")
	}
	r := uldp(t, "dataset", "gen", "--kind", "gaussian", "--n", "2", "--m", "1", "--d", "1", "--out", "-")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "user,x1\n1,") {
		t.Errorf("CSV to stdout: %q", r.stdout)
	}
	bad(t, "must end in .csv or .json", "dataset", "gen", "--kind", "gaussian", "--n", "2", "--m", "1", "--d", "1", "--out", filepath.Join(dir, "d.txt"))
	bad(t, "cap", "dataset", "gen", "--kind", "gaussian", "--n", "100000", "--m", "100", "--d", "10", "--out", csvPath)
	bad(t, `generator kind "uniform"`, "dataset", "gen", "--kind", "uniform", "--n", "2", "--m", "1", "--d", "1", "--out", csvPath)
	bad(t, "missing --out", "dataset", "gen", "--kind", "gaussian", "--n", "2", "--m", "1", "--d", "1")
	bad(t, `"x" is not a number`, "dataset", "gen", "--kind", "gaussian", "--n", "2", "--m", "1", "--d", "2", "--center", "1,x", "--out", csvPath)
	bad(t, "center has 1", "dataset", "gen", "--kind", "gaussian", "--n", "2", "--m", "1", "--d", "2", "--center", "1", "--out", csvPath)
}

func TestServe(t *testing.T) {
	url, cmd := serveForTest(t)
	client := http.Client{Timeout: 5 * time.Second}
	res, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "ULDP Lab") {
		t.Fatalf("GET %s → %d", url, res.StatusCode)
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve did not stop cleanly on Ctrl+C: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("serve did not stop within 10 s of SIGINT")
	}
	bad(t, "write host:port", "serve", "--addr", "8080")
}

func TestTopLevel(t *testing.T) {
	if r := uldp(t); r.code != 2 || !strings.Contains(r.stdout, "Commands:") {
		t.Errorf("no arguments: exit %d\n%s", r.code, r.stdout)
	}
	if r := uldp(t, "help"); r.code != 0 || !strings.Contains(r.stdout, "calibrate") {
		t.Errorf("help: exit %d", r.code)
	}
	bad(t, `unknown command "calibrat"`, "calibrat")
	bad(t, "unexpected argument", "compose", "--rule", "basic", "--eps", "1", "--k", "2", "extra")
	bad(t, "format \"yaml\"", "tdlap", "--eps", "1", "--delta", "0.1", "--format", "yaml")
	if r := uldp(t, "tdlap", "-h"); r.code != 0 || !strings.Contains(r.stderr, "--kappa") && !strings.Contains(r.stderr, "-kappa") {
		t.Errorf("tdlap -h: exit %d\n%s", r.code, r.stderr)
	}
}

// The run and audit contract (issue: "scripts and instructors rely on these
// names"), on spec 000-002 §9.2's worked example.
func TestRunDelOutputPert(t *testing.T) {
	var out struct {
		Kappa   int       `json:"kappa"`
		Sigma   float64   `json:"sigma"`
		RStar   *int      `json:"rstar"`
		Removed []string  `json:"removed"`
		PBottom float64   `json:"p_bottom"`
		Center  []float64 `json:"center"`
		Output  []float64 `json:"output"`
		Trace   struct {
			Steps []struct{ Kind string } `json:"steps"`
		} `json:"trace"`
	}
	args := []string{"run", "--mech", "deloutputpert", "--f", "mean", "--eps", "8", "--delta", "0.1", "--target-sens", "0.1", "--seed", "1"}
	ok(t, &out, append(args, "--data", "testdata/three-outliers.csv")...)
	if out.Kappa != 3 || !(math.Abs(out.Sigma-3.182084) <= 5e-7) || out.RStar == nil || *out.RStar != 3 ||
		strings.Join(out.Removed, ",") != "12,13,14" || !(math.Abs(out.PBottom-1.798610e-2) <= 5e-9) || out.Center[0] != 0 {
		t.Errorf("three outliers: %+v", out)
	}
	if len(out.Trace.Steps) < 4 {
		t.Errorf("trace has %d steps", len(out.Trace.Steps))
	}
	// Same seed, same bytes.
	if a, b := uldp(t, append(args, "--data", "testdata/outlier.csv")...), uldp(t, append(args, "--data", "testdata/outlier.csv")...); a.stdout != b.stdout {
		t.Error("same seed, different output")
	}
	// The two-cluster tie: no stable set, ⊥ for sure, null fields.
	r := uldp(t, append(args, "--data", "testdata/two-clusters.csv")...)
	for _, want := range []string{`"rstar": null`, `"center": null`, `"output": null`, `"p_bottom": 1`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("two clusters: output lacks %s", want)
		}
	}
	if r := uldp(t, "run", "--scenario", "testdata/outliers.json", "--format", "text"); r.code != 0 || !strings.Contains(r.stdout, "trace:") {
		t.Errorf("run --scenario: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad(t, "infeasible", append(args, "--data", "testdata/spread30.csv")...)
	bad(t, "n ≥ 4κ+2", "run", "--mech", "deloutputpert", "--data", "testdata/ragged.csv", "--eps", "8", "--delta", "0.1", "--target-sens", "0.1")
	bad(t, `--mech "laplace"`, "run", "--mech", "laplace", "--data", "testdata/outlier.csv", "--eps", "8", "--delta", "0.1", "--target-sens", "0.1")
	bad(t, `--f "median"`, append(args, "--data", "testdata/outlier.csv", "--f", "median")...)
	bad(t, "teaching-mode setting", append(args, "--data", "testdata/outlier.csv", "--kappa", "3")...)
	bad(t, "drop --data", "run", "--scenario", "testdata/outliers.json", "--data", "testdata/outlier.csv")
}

func TestAuditDelOutputPert(t *testing.T) {
	var out struct {
		Points []struct {
			Eps     float64 `json:"eps"`
			DeltaAB float64 `json:"delta_ab"`
			DeltaBA float64 `json:"delta_ba"`
			Verdict string  `json:"verdict"`
		} `json:"points"`
		Verdict string  `json:"verdict"`
		Changed *string `json:"changed_user"`
	}
	ok(t, &out, "audit", "--mech", "deloutputpert", "--data", "testdata/outlier.csv", "--neighbour", "testdata/inlier.csv",
		"--f", "mean", "--eps", "8", "--delta", "0.1", "--target-sens", "0.1", "--at-eps", "1,8,12")
	if len(out.Points) != 3 || out.Verdict != "pass" || out.Changed == nil || *out.Changed != "14" {
		t.Fatalf("audit: %+v", out)
	}
	// A's only ⊥ mass is R1 = 0 (5.92e-6); B never outputs ⊥ and both centres are 0.
	if p := out.Points[1]; !(math.Abs(p.DeltaAB-5.923191e-6) <= 5e-13) || p.DeltaBA != 0 || p.Verdict != "within" {
		t.Errorf("at ε = 8: %+v", p)
	}
	if out.Points[0].Verdict != "no claim" {
		t.Errorf("below the claimed ε the guarantee says nothing: %+v", out.Points[0])
	}
	bad(t, "not neighbours", "audit", "--mech", "deloutputpert", "--data", "testdata/outlier.csv", "--neighbour", "testdata/not-neighbour.csv",
		"--eps", "8", "--delta", "0.1", "--target-sens", "0.1")
	bad(t, "nothing to audit", "audit", "--mech", "deloutputpert", "--data", "testdata/outlier.csv", "--neighbour", "testdata/inlier.csv",
		"--eps", "8", "--delta", "0.1", "--target-sens", "0.1", "--mode", "non-private")
	bad(t, "--at-eps", "audit", "--mech", "deloutputpert", "--data", "testdata/outlier.csv", "--neighbour", "testdata/inlier.csv",
		"--eps", "8", "--delta", "0.1", "--target-sens", "0.1", "--at-eps", "1,x")
}

func TestStep(t *testing.T) {
	args := []string{"step", "--mech", "deloutputpert", "--data", "testdata/three-outliers.csv", "--f", "mean", "--eps", "8", "--delta", "0.1", "--target-sens", "0.1"}
	r := uldp(t, append(args, "--to", "3")...)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[2], "step 3 of 5 [stability.result] r* = 3 (remove users 12, 13 and 14)") {
		t.Errorf("step --to 3: exit %d\n%s", r.code, r.stdout)
	}
	if r := uldp(t, args...); strings.Count(r.stdout, "\n") != 5 {
		t.Errorf("step without --to on a pipe prints the whole run:\n%s", r.stdout)
	}
	bad(t, "--to 9: the run has 5 steps", append(args, "--to", "9")...)
}

// The form: a scenario holds A and the parameters, a replace spec
// makes B; it agrees with the two-CSV form on the same pair.
func TestAuditScenarioAndNeighbourSpec(t *testing.T) {
	type result struct {
		Points  []map[string]any `json:"points"`
		Verdict string           `json:"verdict"`
		Changed *string          `json:"changed_user"`
	}
	var spec, files result
	ok(t, &spec, "audit", "--scenario", "testdata/far-outlier.json", "--neighbour", "replace:14=0", "--mutant", "no-stability")
	ok(t, &files, "audit", "--mech", "deloutputpert", "--data", "testdata/far-outlier.csv", "--neighbour", "testdata/inlier.csv",
		"--eps", "8", "--delta", "0.1", "--target-sens", "0.1", "--mutant", "no-stability")
	if !reflect.DeepEqual(spec, files) || spec.Verdict != "violation" || spec.Changed == nil || *spec.Changed != "14" {
		t.Errorf("scenario + spec %+v, files %+v", spec, files)
	}
	bad(t, "has 2 coordinates, the data has d = 1", "audit", "--scenario", "testdata/far-outlier.json", "--neighbour", "replace:14=0,1")
	bad(t, `no user "99"`, "audit", "--scenario", "testdata/far-outlier.json", "--neighbour", "replace:99=0")
	bad(t, "drop --eps", "audit", "--scenario", "testdata/far-outlier.json", "--neighbour", "replace:14=0", "--eps", "1")
	bad(t, "--neighbour", "audit", "--scenario", "testdata/far-outlier.json")
}

func TestAuditMutants(t *testing.T) {
	args := []string{"audit", "--mech", "deloutputpert", "--data", "testdata/far-outlier.csv", "--neighbour", "testdata/inlier.csv",
		"--f", "mean", "--eps", "8", "--delta", "0.1", "--target-sens", "0.1"}
	var real, mut struct {
		Verdict string `json:"verdict"`
		Mutant  *struct{ Name string }
	}
	ok(t, &real, args...)
	ok(t, &mut, append(args, "--mutant", "no-stability")...)
	if real.Verdict != "pass" || mut.Verdict != "violation" || mut.Mutant == nil || mut.Mutant.Name != "no-stability" {
		t.Errorf("real %+v, mutant %+v", real, mut)
	}
	if r := uldp(t, append(args, "--mutant", "no-stability", "--format", "text")...); !strings.Contains(r.stdout, "catches this mutant") {
		t.Errorf("text:\n%s", r.stdout)
	}
	bad(t, `mutant "sigma/2"`, append(args, "--mutant", "sigma/2")...)
}

func TestAuditMonteCarlo(t *testing.T) {
	var out struct {
		Verdict    string `json:"verdict"`
		MonteCarlo *struct {
			Runs     int     `json:"runs"`
			EpsLower float64 `json:"eps_lower"`
			Verdict  string  `json:"verdict"`
		} `json:"monte_carlo"`
	}
	args := []string{"audit", "--mech", "deloutputpert", "--data", "testdata/far-outlier.csv", "--neighbour", "testdata/inlier.csv",
		"--eps", "8", "--delta", "0.1", "--target-sens", "0.1", "--monte-carlo", "--runs", "20000"}
	ok(t, &out, args...)
	if out.MonteCarlo == nil || out.MonteCarlo.Runs != 20000 || out.MonteCarlo.Verdict != "pass" || out.Verdict != "pass" {
		t.Errorf("real mechanism: %+v", out)
	}
	// Catching it takes the protocol's 10⁵ runs: with 2·10⁴ an empty event's
	// upper bound is too wide to prove more than ε ≈ 7.2.
	ok(t, &out, append(args, "--mutant", "no-stability", "--runs", "100000")...)
	if out.MonteCarlo.Verdict != "violation" || out.MonteCarlo.EpsLower <= 8 {
		t.Errorf("mutant by sampling: %+v", out.MonteCarlo)
	}
	bad(t, "runs = 10", append(args, "--runs", "10")...)
}

// Paper A's optimisers through run and step: flags and scenario give the
// same run (the scenario's generator and seed draw the CSV's data), the
// ledger spends exactly (ε, δ), and mistakes name the flag to fix.
func TestRunOptimisers(t *testing.T) {
	flagsFor := func(m string) []string {
		return []string{"run", "--mech", m, "--data", "testdata/tight-2d.csv", "--eps", "8", "--delta", "0.1", "--rk", "1", "--rx", "2", "--phases", "2", "--seed", "5"}
	}
	type phased struct {
		Mechanism string    `json:"mechanism"`
		Theta     []float64 `json:"theta"`
		Phases    []struct {
			Users  int       `json:"users"`
			Kappa  int       `json:"kappa"`
			Output []float64 `json:"output"`
		} `json:"phases"`
		Ledger struct {
			Total struct{ Eps, Delta float64 } `json:"total"`
		} `json:"ledger"`
		Stage1 *struct {
			Radius float64 `json:"radius"`
		} `json:"stage1"`
		Trace struct {
			Steps []any `json:"steps"`
		} `json:"trace"`
	}
	var viaFlags, viaScenario phased
	ok(t, &viaFlags, flagsFor("phased-erm")...)
	ok(t, &viaScenario, "run", "--scenario", "testdata/phased.json")
	if !reflect.DeepEqual(viaFlags, viaScenario) || len(viaFlags.Phases) != 2 || viaFlags.Stage1 != nil {
		t.Errorf("flags %+v\nscenario %+v", viaFlags, viaScenario)
	}
	var sc phased
	ok(t, &sc, flagsFor("strongly-convex-erm")...)
	if sc.Stage1 == nil || sc.Stage1.Radius <= 0 || len(sc.Phases) != 2 || len(sc.Trace.Steps) != 2+3*2 {
		t.Errorf("strongly-convex-erm: %+v", sc)
	}
	for _, r := range []phased{viaFlags, sc} {
		if !(math.Abs(r.Ledger.Total.Eps-8) <= 1e-12) || !(math.Abs(r.Ledger.Total.Delta-0.1) <= 1e-15) {
			t.Errorf("%s spends %+v, want (8, 0.1)", r.Mechanism, r.Ledger.Total)
		}
	}
	var one struct {
		Mechanism  string    `json:"mechanism"`
		TargetSens float64   `json:"target_sens"`
		Kappa      int       `json:"kappa"`
		RStar      *int      `json:"rstar"`
		Output     []float64 `json:"output"`
		Certified  bool      `json:"certificate"`
	}
	ok(t, &one, flagsFor("scoutputpert")...)
	// Δ = 10G√ln(1/β)/(μn√m) with G = 3, β = 0.01, n = 30, m = 2.
	if want := 30 * math.Sqrt(math.Log(100)) / (30 * math.Sqrt2); !(math.Abs(one.TargetSens-want) <= 1e-12) || !one.Certified || one.RStar == nil || *one.RStar != 0 || len(one.Output) != 2 {
		t.Errorf("scoutputpert: %+v (want Δ = %v)", one, want)
	}
	if r := uldp(t, "step", "--scenario", "testdata/phased.json", "--to", "3"); r.code != 0 || !strings.Contains(r.stdout, "step 3 of 6 [phase.release]") {
		t.Errorf("step: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The private median: the absolute loss on 1-D data, searched exactly.
	var median phased
	ok(t, &median, "run", "--mech", "phased-erm", "--loss", "absolute", "--data", "testdata/outlier.csv",
		"--eps", "40", "--delta", "0.1", "--rk", "1", "--rx", "1", "--phases", "2")
	if len(median.Phases) != 2 || len(median.Theta) != 1 || !(math.Abs(median.Theta[0]) <= 1) {
		t.Errorf("private median: %+v", median)
	}
	bad(t, "the absolute loss is 1-D", append(flagsFor("phased-erm"), "--loss", "absolute")...)
	bad(t, `loss "hinge"`, append(flagsFor("phased-erm"), "--loss", "hinge")...)
	bad(t, "missing --rk, --rx", "run", "--mech", "phased-sco", "--data", "testdata/tight-2d.csv", "--eps", "8", "--delta", "0.1")
	bad(t, `rule "tight"`, append(flagsFor("phased-erm"), "--sens-rule", "tight")...)
	bad(t, "beta = 0.5", append(flagsFor("scoutputpert"), "--beta", "0.5")...)
	bad(t, "needs n ≥ 4κ+2", flagsFor("phased-sco")...)
	bad(t, "outside the data radius", append(flagsFor("scoutputpert"), "--rx", "0.1")...)
}

// The ORME contract (issue 5): score, threshold, p_pass, neighbour_counts,
// keep_prob, passed, kept (1-based, CSV order), sigma, output.
func TestRunORME(t *testing.T) {
	var out struct {
		Score           float64   `json:"score"`
		Threshold       float64   `json:"threshold"`
		PPass           float64   `json:"p_pass"`
		NeighbourCounts []int     `json:"neighbour_counts"`
		KeepProb        []float64 `json:"keep_prob"`
		Passed          bool      `json:"passed"`
		Kept            []int     `json:"kept"`
		Sigma           float64   `json:"sigma"`
		Output          []float64 `json:"output"`
		Outputs         [][]float64
		Guarantee       struct {
			Certified bool `json:"certified"`
		} `json:"guarantee"`
	}
	args := []string{"run", "--mech", "orme", "--data", "testdata/outlier.csv", "--tau", "0.2", "--eps", "8", "--delta", "0.1"}
	// 13 users within 0.2 of each other and one at 10: s = (13² + 1)/14.
	for seed := 1; ; seed++ {
		ok(t, &out, append(args, "--seed", strconv.Itoa(seed))...)
		if !(math.Abs(out.Score-170.0/14) <= 1e-12) || out.Threshold != 11.2 || len(out.NeighbourCounts) != 14 || out.NeighbourCounts[13] != 1 || out.KeepProb[13] != 0 || out.KeepProb[0] != 1 {
			t.Fatalf("seed %d: %+v", seed, out)
		}
		// b₁ = 0.5, b₂ = 1: Pr[Lap(0.5) + Lap(1) ≥ 11.2 − s].
		w := 11.2 - 170.0/14
		if want := 1 - (0.25*math.Exp(w/0.5)-math.Exp(w))/(2*(0.25-1)); !(math.Abs(out.PPass-want) <= 1e-12) {
			t.Fatalf("p_pass %v, want %v", out.PPass, want)
		}
		if out.Passed {
			if !reflect.DeepEqual(out.Kept, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}) || len(out.Output) != 1 || out.Sigma <= 0 {
				t.Errorf("passed run: kept %v, output %v, σ %v", out.Kept, out.Output, out.Sigma)
			}
			break
		}
		if out.Output != nil || seed > 20 {
			t.Fatalf("seed %d: halted with output %v (or never passed)", seed, out.Output)
		}
	}
	if out.Guarantee.Certified {
		t.Error("paper mode certified despite erratum A13")
	}
	ok(t, &out, append(args, "--mode", "sound", "--queries", "3")...)
	if out.Sigma < 1 || out.Guarantee.Certified { // 14 users are far below the sound proof's n
		t.Errorf("sound: σ = %v, certified %v", out.Sigma, out.Guarantee.Certified)
	}
	if out.Passed && len(out.Outputs) != 3 {
		t.Errorf("T = 3 passed but %d outputs", len(out.Outputs))
	}
	bad(t, "missing --tau", "run", "--mech", "orme", "--data", "testdata/outlier.csv", "--eps", "8", "--delta", "0.1")
	bad(t, "tau = -1", append(args, "--tau", "-1")...)
	if r := uldp(t, "step", "--mech", "orme", "--data", "testdata/outlier.csv", "--tau", "0.2", "--eps", "8", "--delta", "0.1", "--to", "2"); r.code != 0 || !strings.Contains(r.stdout, "[orme.score]") {
		t.Errorf("step: %d %s %s", r.code, r.stdout, r.stderr)
	}
}

// DP-SGD through run and step: Theorem 4.1's settings with T overridden,
// the answer in Θ, the trace only when asked, and clear refusals.
func TestRunDPSGD(t *testing.T) {
	var out struct {
		Theta    []float64   `json:"theta"`
		Halted   int         `json:"halted"`
		Iterates [][]float64 `json:"iterates"`
		Settings struct {
			Steps int     `json:"steps"`
			Eta   float64 `json:"eta"`
			Tau   float64 `json:"tau"`
		} `json:"settings"`
		Trace *struct {
			Steps []any `json:"steps"`
		} `json:"trace"`
	}
	ok(t, &out, "run", "--scenario", "testdata/dpsgd.json")
	if out.Settings.Steps != 100 || out.Halted != 0 || len(out.Iterates) != 100 || math.Hypot(out.Theta[0], out.Theta[1]) > 1 || out.Trace != nil {
		t.Fatalf("%+v", out)
	}
	// τ = G·ln(ndm·e^ε·T/δ)/√m with G = 1, n = 300, d = 2, m = 5.
	if want := math.Log(300*2*5*math.Exp(8)*100/1e-5) / math.Sqrt(5); !(math.Abs(out.Settings.Tau-want) <= 1e-12) {
		t.Errorf("τ = %v, want %v", out.Settings.Tau, want)
	}
	if r := uldp(t, "step", "--scenario", "testdata/dpsgd.json", "--to", "6"); r.code != 0 || !strings.Contains(r.stdout, "[sgd.step]") {
		t.Errorf("step: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad(t, "drop --loss", "run", "--scenario", "testdata/dpsgd.json", "--loss", "absolute")
	bad(t, `--loss "absolute"`, "run", "--mech", "dp-sgd", "--data", "testdata/outlier.csv", "--eps", "8", "--delta", "0.1", "--rk", "1", "--loss", "absolute")
	bad(t, "missing --rk", "run", "--mech", "dp-sgd", "--data", "testdata/outlier.csv", "--eps", "8", "--delta", "0.1")
	bad(t, "--theta0", "run", "--mech", "dp-sgd", "--data", "testdata/outlier.csv", "--eps", "8", "--delta", "0.1", "--rk", "1", "--theta0", "0,x")
}

// The strongly convex localisation: halving groups, one report per phase.
func TestRunDPSGDSC(t *testing.T) {
	var out struct {
		Theta  []float64 `json:"theta"`
		Phases []struct {
			Users int `json:"users"`
		} `json:"phases"`
	}
	ok(t, &out, "run", "--mech", "dp-sgd-sc", "--data", "testdata/tight-2d.csv", "--eps", "8", "--delta", "1e-5", "--rk", "1", "--rx", "2", "--steps", "200", "--mode", "non-private")
	// n = 30, m = 2: k = ⌈log₂ log₂ 60⌉ = 3 groups of ⌊30/8⌋, ⌊30/4⌋, ⌊30/2⌋.
	if len(out.Phases) != 3 || out.Phases[0].Users != 3 || out.Phases[1].Users != 7 || out.Phases[2].Users != 15 || len(out.Theta) != 2 {
		t.Errorf("%+v", out)
	}
	bad(t, "missing --rx", "run", "--mech", "dp-sgd-sc", "--data", "testdata/tight-2d.csv", "--eps", "8", "--delta", "1e-5", "--rk", "1")
}

// ORME's audit: one query over users' 1-D item means, exact; by sampling in
// any dimension. Sound ORME keeps its promise on a crowd of 300 with one
// user moved far away; keep-all is caught exactly and by sampling; half the
// score noise passes, with the reason.
func TestAuditORME(t *testing.T) {
	args := []string{"audit", "--mech", "orme", "--data", "testdata/crowd300.csv", "--neighbour", "replace:1=10000",
		"--tau", "1", "--eps", "8", "--delta", "0.1", "--mode", "sound"}
	type result struct {
		Points []struct {
			DeltaAB float64 `json:"delta_ab"`
			DeltaBA float64 `json:"delta_ba"`
		} `json:"points"`
		A, B *struct {
			Score float64 `json:"score"`
			PPass float64 `json:"p_pass"`
		}
		MonteCarlo *struct {
			Verdict string `json:"verdict"`
		} `json:"monte_carlo"`
		Claimed struct {
			Certified bool `json:"certified"`
		} `json:"claimed"`
		Verdict, Note string
	}
	var real, keepAll, half, sampled result
	ok(t, &real, args...)
	if real.Verdict != "pass" || len(real.Points) != 1 || !real.Claimed.Certified || real.A.Score != 300 || !(math.Abs(real.B.Score-(299*299+1)/300.0) <= 1e-9) {
		t.Errorf("sound ORME: %+v (A %+v, B %+v)", real, real.A, real.B)
	}
	ok(t, &keepAll, append(args, "--mutant", "keep-all")...)
	if keepAll.Verdict != "violation" || keepAll.Points[0].DeltaAB < 0.99 {
		t.Errorf("keep-all: %+v", keepAll)
	}
	ok(t, &half, append(args, "--mutant", "half-score-noise")...)
	if half.Verdict != "pass" || !strings.Contains(half.Note, "orme-gate") {
		t.Errorf("half-score-noise: %+v", half)
	}
	ok(t, &sampled, append(args, "--mutant", "keep-all", "--monte-carlo", "--runs", "100000")...)
	if sampled.MonteCarlo == nil || sampled.MonteCarlo.Verdict != "violation" {
		t.Errorf("keep-all by sampling: %+v", sampled.MonteCarlo)
	}
	// 2-D users: sampling only.
	flat := []string{"audit", "--mech", "orme", "--data", "testdata/tight-2d.csv", "--tau", "0.5", "--eps", "8", "--delta", "0.1"}
	bad(t, "add --monte-carlo", append(flat, "--neighbour", "replace:1=9,9")...)
	var twoD result
	ok(t, &twoD, append(flat, "--neighbour", "replace:1=9,9", "--monte-carlo", "--runs", "1000")...)
	if twoD.A != nil || twoD.MonteCarlo == nil || len(twoD.Points) != 0 {
		t.Errorf("2-D: %+v", twoD)
	}
	bad(t, "covers one query", append(args, "--queries", "2")...)
	bad(t, "orme's broken variants are", append(args, "--mutant", "no-stability")...)
	bad(t, "audit supports deloutputpert, orme, dp-sgd (by sampling), robust-sgd, outlier-iterate-removal and accelerated-outlier-removal (by sampling)", "audit", "--mech", "dp-sgd-sc", "--data", "testdata/crowd300.csv", "--neighbour", "replace:1=0",
		"--eps", "8", "--delta", "0.1", "--rk", "1", "--rx", "1")
}

// DP-SGD is audited by sampling whole runs: at the audit lab's settings
// (600 users, so the proof covers them) the real run passes, keep-all is
// caught on a far user, and half the score noise passes with the reason.
func TestAuditDPSGD(t *testing.T) {
	base := []string{"audit", "--mech", "dp-sgd", "--data", "testdata/crowd600.csv", "--neighbour", "replace:600=10000", "--eps", "8", "--delta", "0.1",
		"--rk", "50", "--steps", "8", "--eta", "0.5", "--tau", "1", "--mode", "sound"}
	args := append(slices.Clone(base), "--smoothing", "0", "--monte-carlo")
	type result struct {
		HaltA      float64 `json:"halt_a"`
		Settings   struct{ Steps int }
		MonteCarlo *struct {
			Verdict  string  `json:"verdict"`
			EpsLower float64 `json:"eps_lower"`
		} `json:"monte_carlo"`
		Claimed struct {
			Certified bool `json:"certified"`
		} `json:"claimed"`
		Verdict, Note string
	}
	var real, keepAll, half result
	ok(t, &real, args...)
	if real.Verdict != "pass" || !real.Claimed.Certified || real.Settings.Steps != 8 || real.HaltA > 1e-9 || real.MonteCarlo == nil {
		t.Errorf("sound DP-SGD: %+v", real)
	}
	ok(t, &keepAll, append(args, "--mutant", "keep-all")...)
	if keepAll.Verdict != "violation" || keepAll.MonteCarlo.EpsLower <= 8 {
		t.Errorf("keep-all: %+v", keepAll)
	}
	ok(t, &half, append(args, "--mutant", "half-score-noise", "--runs", "20000")...)
	if half.Verdict != "pass" || !strings.Contains(half.Note, "never when") {
		t.Errorf("half-score-noise: %+v", half)
	}
	bad(t, "add --monte-carlo", append(slices.Clone(base), "--smoothing", "0")...)
	bad(t, "add --smoothing 0", append(slices.Clone(base), "--monte-carlo")...)
	bad(t, "--loss squared", append(args, "--loss", "distance")...)
	bad(t, "too many steps to sample", append(args, "--steps", "100000")...)
	bad(t, "dp-sgd's broken variants are ORME's", append(args, "--mutant", "no-stability")...)
}

// Text output reads as prose: points to four significant digits, unmet
// preconditions named one a line, lists in words, the Monte Carlo's worst
// event explained.
func TestTextReads(t *testing.T) {
	long := regexp.MustCompile(`\d\.\d{10,}`) // a float64 printed whole
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"run", "--mech", "strongly-convex-erm", "--data", "testdata/tight-2d.csv", "--eps", "8", "--delta", "0.1", "--rk", "1", "--rx", "2", "--phases", "2"},
			[]string{"NOT certified, 2 preconditions unmet\n  • ", "stage 1: ε̄ = ε/2 < 1", "θ̂ = ("}},
		{[]string{"run", "--mech", "deloutputpert", "--data", "testdata/three-outliers.csv", "--f", "mean", "--eps", "8", "--delta", "0.1", "--target-sens", "0.1"},
			[]string{"removed users 12, 13 and 14", "centre ("}},
		{[]string{"audit", "--scenario", "testdata/far-outlier.json", "--neighbour", "replace:14=0", "--mutant", "no-stability", "--monte-carlo", "--runs", "1000"},
			[]string{"the event that tells A from B best: “", "⟨o,u⟩ is an output projected"}},
	} {
		r := uldp(t, append(c.args, "--format", "text")...)
		if r.code != 0 {
			t.Fatalf("%v: exit %d\n%s", c.args, r.code, r.stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w) {
				t.Errorf("%s: no %q in\n%s", c.args[1:3], w, r.stdout)
			}
		}
		if m := long.FindString(r.stdout); m != "" {
			t.Errorf("%s: %s printed to full precision in\n%s", c.args[1:3], m, r.stdout)
		}
	}
}

// Results that overflow or are not numbers end in exit 2 with the field
// named, never in the encoder's "unsupported value" and exit 1.
func TestNonFiniteResultsAreBadInput(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big.csv")
	if err := os.WriteFile(big, []byte("user,x1\n1,1.7e308\n2,1.7e308\n3,1\n4,1\n5,1\n6,1\n7,1\n8,1\n9,1\n10,1\n11,1\n12,1\n13,1\n14,1\n15,1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{
		// Calibration names the value that overflows (σ = c·Δ/ε, b = Δ/ε).
		{"σ = c·Δ/ε comes to +Inf", "calibrate", "--mech", "gaussian", "--eps", "1", "--delta", "1e-5", "--sens", "1e308"},
		{"b = Δ/ε comes to +Inf at ε = 1e-300", "calibrate", "--mech", "laplace", "--eps", "1e-300", "--sens", "1e10", "--format", "text"},
		{"--mu = NaN: must be a finite number", "sample", "--dist", "laplace", "--mu", "NaN", "--scale", "1", "--n", "2"},
		{"--mu = +Inf", "sample", "--dist", "gaussian", "--mu", "Inf", "--sigma", "1", "--n", "2"},
		{"result.mean", "sample", "--dist", "gaussian", "--mu", "1e308", "--sigma", "1e308", "--n", "3"},
		{"not a finite number (result.mean[0])", "run", "--mech", "orme", "--mode", "non-private", "--data", big, "--eps", "1", "--delta", "1e-5", "--tau", "1"},
	} {
		bad(t, c[0], c[1:]...)
	}
}

// DP-SGD runs with the settings asked for or not at all: a bad value is
// refused under its own flag's name, not replaced by the theorem's default
// nor blamed on another flag.
func TestDPSGDFlagsAreNeverReplaced(t *testing.T) {
	base := []string{"run", "--mech", "dp-sgd", "--data", "testdata/crowd600.csv", "--eps", "1", "--delta", "1e-5", "--rk", "1", "--rx", "1", "--loss", "squared"}
	for _, c := range [][]string{
		{"--eta = -1", "--eta", "-1"},
		{"--tau = NaN", "--tau", "NaN"},
		{"--smoothing = -7", "--smoothing", "-7"},
		{"--steps = -5", "--steps", "-5"},
		{"--smoothing = NaN", "--smoothing", "NaN"},
		{"--mu = -1", "--mu", "-1"},
		{"--rx = +Inf", "--rx", "Inf"},
		{"Theorem 4.1 gives eta = +Inf", "--rk", "1e308"},
	} {
		bad(t, c[0], append(append([]string(nil), base...), c[1:]...)...)
	}
	// Given values are used as given: smoothing 0 is no smoothing.
	var out struct {
		Settings struct{ Steps, Eta, Smoothing, Tau float64 }
	}
	ok(t, &out, append(append([]string(nil), base...), "--steps", "20", "--eta", "0.1", "--smoothing", "0", "--tau", "5")...)
	if s := out.Settings; s.Steps != 20 || s.Eta != 0.1 || s.Smoothing != 0 || s.Tau != 5 {
		t.Errorf("settings %+v, want exactly the flags", s)
	}
}

// Flags are checked before the data is opened: a FIFO nobody writes would
// block any command that reads it, so each of these must answer at once.
func TestFlagsAreCheckedBeforeTheData(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "never-written.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, c := range [][]string{
		{"delta = 2", "run", "--mech", "deloutputpert", "--data", fifo, "--eps", "1", "--delta", "2", "--target-sens", "0.1"},
		{"--eta = -1", "run", "--mech", "dp-sgd", "--data", fifo, "--eps", "1", "--delta", "1e-5", "--rk", "1", "--rx", "1", "--eta", "-1"},
		{"tau = -1", "step", "--mech", "orme", "--data", fifo, "--eps", "1", "--delta", "1e-5", "--tau", "-1"},
		{"rk = -1", "run", "--mech", "phased-erm", "--data", fifo, "--eps", "1", "--delta", "1e-5", "--rk", "-1", "--rx", "1"},
	} {
		// A deadline long enough for a busy machine; a command that opened
		// the FIFO would wait on it for ever.
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, bin, c[1:]...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		err := cmd.Run()
		late := ctx.Err() == context.DeadlineExceeded
		cancel()
		if late {
			t.Errorf("uldp %v read the data before refusing its flags", c[1:])
			continue
		}
		if ee, isExit := err.(*exec.ExitError); !isExit || ee.ExitCode() != 2 || !strings.Contains(errb.String(), c[0]) {
			t.Errorf("uldp %v: %v, stderr %q; want exit 2 with %q", c[1:], err, errb.String(), c[0])
		}
	}
}

// Each input has one validation path: what run refuses, scenario validate
// refuses; what the readers refuse, the generator does not write; and an
// address or directory that cannot be used is bad input (exit 2).
func TestOneValidationPath(t *testing.T) {
	dir := t.TempDir()
	raw, err := os.ReadFile("testdata/outliers.json")
	if err != nil {
		t.Fatal(err)
	}
	k := filepath.Join(dir, "kappa.json")
	if err := os.WriteFile(k, bytes.Replace(raw, []byte(`"f": "mean"}`), []byte(`"f": "mean", "kappa": 1000000000}`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	bad(t, "kappa = 1000000000", "run", "--scenario", k)
	bad(t, "kappa = 1000000000", "scenario", "validate", k)
	// Seed 1 draws +Inf among 30 × 2 values at this spread (checked).
	bad(t, "coordinates must be finite", "dataset", "gen", "--kind", "gaussian", "--n", "30", "--m", "2", "--d", "1", "--spread", "1e308", "--out", filepath.Join(dir, "x.csv"))
	bad(t, "does not exist", "dataset", "gen", "--kind", "gaussian", "--n", "3", "--m", "2", "--d", "1", "--out", filepath.Join(dir, "no", "such", "x.csv"))
	bad(t, "cannot listen", "serve", "--addr", "127.0.0.1:99999")
}

// Reading the data costs bounded memory and time whatever the file: each
// limit stops the read with its flag named, and a byte-order mark is fine.
func TestDataLimits(t *testing.T) {
	base := []string{"run", "--mech", "orme", "--mode", "non-private", "--eps", "1", "--delta", "1e-5", "--tau", "1", "--data"}
	with := func(data string, more ...string) []string {
		return append(append(append([]string(nil), base...), data), more...)
	}
	bad(t, "raise the limit with --max-line", with("/dev/zero")...)
	dir := t.TempDir()
	wide := filepath.Join(dir, "wide.csv")
	header := []string{"user"}
	for k := 1; k <= 10_001; k++ {
		header = append(header, "x"+strconv.Itoa(k))
	}
	if err := os.WriteFile(wide, []byte(strings.Join(header, ",")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bad(t, "raise the limit with --max-columns", with(wide)...)
	bad(t, "line 7: there are more than 5 rows", with("testdata/three-outliers.csv", "--max-rows", "5")...)
	bad(t, "raise the limit with --max-bytes", with("testdata/three-outliers.csv", "--max-bytes", "30")...)
	bad(t, "--max-rows = 0", with("testdata/three-outliers.csv", "--max-rows", "0")...)
	bom := filepath.Join(dir, "bom.csv")
	if err := os.WriteFile(bom, []byte("\uFEFFuser,x1\n1,0\n2,0.1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var out struct{ Mean []float64 }
	ok(t, &out, with(bom)...)
	if len(out.Mean) != 1 || !(math.Abs(out.Mean[0]-0.05) <= 1e-12) {
		t.Errorf("with a byte-order mark: %+v", out)
	}
}

// A message quoting a huge input is cut: a 100 KB flag value does not make
// a 100 KB error.
func TestLongMessagesAreCut(t *testing.T) {
	r := uldp(t, "calibrate", "--mech", strings.Repeat("é", 50_000), "--eps", "1", "--delta", "1e-5", "--sens", "1")
	if r.code != 2 || len(r.stderr) > 1200 || !strings.Contains(r.stderr, "message cut") || !utf8.ValidString(r.stderr) {
		t.Errorf("exit %d, %d-byte message", r.code, len(r.stderr))
	}
}

// Memory and time stay bounded whatever the flags: a million ORME queries
// took 24 GB and ten minutes, 2·10⁵ recorded DP-SGD steps 5 GB, 10⁹ Monte
// Carlo runs 16 GB; each is refused at once with the flag to change.
func TestWorkIsBounded(t *testing.T) {
	crowd := "testdata/crowd600.csv"
	bad(t, "--queries 1000000 on 600 users", "run", "--mech", "orme", "--data", crowd, "--eps", "1", "--delta", "1e-5", "--tau", "1", "--queries", "1000000")
	bad(t, "--steps 200000 on 600 users", "step", "--mech", "dp-sgd", "--data", crowd, "--eps", "1", "--delta", "1e-5", "--rk", "1", "--rx", "1", "--steps", "200000", "--to", "1")
	bad(t, "--steps 5000 on 600 users", "run", "--mech", "dp-sgd", "--data", crowd, "--eps", "1", "--delta", "1e-5", "--rk", "1", "--rx", "1", "--steps", "5000", "--trace")
	bad(t, "at most 1e+07 runs per side", "audit", "--mech", "deloutputpert", "--data", "testdata/three-outliers.csv", "--neighbour", "replace:1=5",
		"--eps", "8", "--delta", "0.1", "--target-sens", "0.1", "--monte-carlo", "--runs", "1000000000")
	// Within the bounds, the same commands run.
	var out struct{ Outputs [][]float64 }
	ok(t, &out, "run", "--mech", "orme", "--data", crowd, "--eps", "1", "--delta", "1e-5", "--tau", "1", "--queries", "50")
	if len(out.Outputs) == 0 {
		t.Error("50 queries gave no outputs")
	}
}

// Robust SGD's contract: batches by id in file order with --order given,
// each iterate one projected step along its estimate, the threshold
// v = 0.9B + 2 ln(T/δ)/ε (solved in sound mode), the test's noise by mode, and non-private runs
// answering the average.
// A scenario gives robust SGD every parameter its flags give: the same run,
// byte for byte; a bad robust parameter names itself.
func TestRunRobustSGDScenario(t *testing.T) {
	flags := uldp(t, "run", "--mech", "robust-sgd", "--data", "testdata/robust40.csv", "--batch", "10", "--r", "1", "--eta", "0.2",
		"--domain", "2", "--theta0", "1.5,-1.5", "--eps", "1", "--delta", "1e-5", "--order", "given", "--mode", "sound", "--seed", "3")
	scen := uldp(t, "run", "--scenario", "testdata/robust40.json")
	if flags.code != 0 || scen.code != 0 || flags.stdout != scen.stdout {
		t.Fatalf("flags exit %d, scenario exit %d (%s)\nflags:\n%.400s\nscenario:\n%.400s", flags.code, scen.code, scen.stderr, flags.stdout, scen.stdout)
	}
	dir := t.TempDir()
	raw, err := os.ReadFile("testdata/robust40.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"order": "given"`, `"order": "sorted"`, "params.order"},
		{`"batch": 10`, `"batch": 0`, "params.batch"},
		{`"r": 1, `, ``, "params.r is missing"},
		{`"order": "given"`, `"order": "given", "threshold": "high"`, "params.threshold: expected a number"},
		{`"order": "given"`, `"order": "given", "stat": "trimmed", "trim": 0`, "params.trim"},
	} {
		f := filepath.Join(dir, "s.json")
		if err := os.WriteFile(f, []byte(strings.Replace(string(raw), c.from, c.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		r := uldp(t, "run", "--scenario", f)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%s → %s: exit %d, %q; want exit 2 naming %q", c.from, c.to, r.code, r.stderr, c.want)
		}
	}
}

func TestRunRobustSGD(t *testing.T) {
	args := []string{"run", "--mech", "robust-sgd", "--data", "testdata/robust40.csv", "--batch", "10", "--r", "1", "--eta", "0.2",
		"--domain", "2", "--theta0", "1.5,-1.5", "--eps", "1", "--delta", "1e-5", "--order", "given", "--seed", "3"}
	type phase struct {
		Batches             [][]string  `json:"batches"`
		Scores              []float64   `json:"scores"`
		Estimates           [][]float64 `json:"estimates"`
		Iterates            [][]float64 `json:"iterates"`
		Average             []float64   `json:"average"`
		Threshold           float64     `json:"threshold"`
		ThresholdNoiseScale float64     `json:"threshold_noise_scale"`
		ScoreNoiseScale     float64     `json:"score_noise_scale"`
		Passed              bool        `json:"passed"`
		FailedAt            *int        `json:"failed_at"`
		Output              []float64   `json:"output"`
	}
	var np, sound, paper, solved struct {
		phase
		Output    []float64 `json:"output"`
		Guarantee struct {
			Certified bool     `json:"certified"`
			Eps       *float64 `json:"eps"`
		} `json:"guarantee"`
	}
	ok(t, &np, append(args, "--mode", "non-private")...)
	if len(np.Batches) != 4 || np.Batches[1][0] != "11" || np.Batches[3][9] != "40" {
		t.Fatalf("batches %v: want users 1–10, 11–20, … in file order", np.Batches)
	}
	x := []float64{1.5, -1.5}
	for s, est := range np.Estimates {
		for k := range x {
			x[k] = math.Max(-2, math.Min(2, x[k]-0.2*est[k]))
			if !(math.Abs(np.Iterates[s][k]-x[k]) <= 1e-12) {
				t.Fatalf("x_%d = %v, want x_%d − η·g = %v", s+1, np.Iterates[s], s, x)
			}
		}
	}
	if !np.Passed || np.FailedAt != nil || !slices.Equal(np.Output, np.Average) || np.Guarantee.Eps != nil {
		t.Errorf("non-private: passed %v, failed at %v, output %v, average %v", np.Passed, np.FailedAt, np.Output, np.Average)
	}
	if want := 9 + 2*math.Log(4/1e-5); !(math.Abs(np.Threshold-want) <= 1e-12) {
		t.Errorf("threshold %v, want 0.9B + 2 ln(T/δ)/ε = %v", np.Threshold, want)
	}
	ok(t, &sound, append(args, "--mode", "sound", "--threshold", "-100")...)
	if sound.ThresholdNoiseScale != 8 || sound.ScoreNoiseScale != 16 || !sound.Passed || !slices.Equal(sound.Scores, np.Scores) {
		t.Errorf("sound: noise scales %v, %v (want 8, 16), passed %v", sound.ThresholdNoiseScale, sound.ScoreNoiseScale, sound.Passed)
	}
	// Sound mode's own v (errata A28): (2/3 + 1/(3e))·10 + 2 + w, where
	// Lap(16) − Lap(8) exceeds w = 204.8097… with chance δ/(2e), computed
	// to 30 digits apart from this code.
	ok(t, &solved, append(args, "--mode", "sound")...)
	if !(math.Abs(solved.Threshold-214.70264103292896989) <= 1e-9) {
		t.Errorf("sound mode's threshold %v, want 214.70264103292896989", solved.Threshold)
	}
	ok(t, &paper, append(args, "--mode", "paper", "--threshold", "1000")...)
	if paper.ThresholdNoiseScale != 4 || paper.ScoreNoiseScale != 8 || paper.Passed || paper.FailedAt == nil || *paper.FailedAt != 1 || paper.Guarantee.Certified {
		t.Errorf("paper: noise scales %v, %v (want 4, 8), failed at %v", paper.ThresholdNoiseScale, paper.ScoreNoiseScale, paper.FailedAt)
	}
	var loc struct {
		Phases []phase   `json:"phases"`
		Output []float64 `json:"output"`
	}
	ok(t, &loc, "run", "--mech", "robust-sgd-loc", "--data", "testdata/robust40.csv", "--batch", "5", "--r", "1", "--eta", "0.5",
		"--domain", "2", "--eps", "1", "--delta", "1e-5", "--order", "given", "--mode", "non-private")
	if len(loc.Phases) != 3 || len(loc.Phases[0].Batches) != 4 || loc.Phases[1].Batches[0][0] != "21" || !slices.Equal(loc.Output, loc.Phases[2].Output) {
		t.Errorf("A-LOC: %d phases (want 3: 20, 10 and 5 users), phase 2 starts with user %v", len(loc.Phases), loc.Phases[1].Batches[0][0])
	}
	if r := uldp(t, append([]string{"step"}, append(args[1:], "--mode", "sound")...)...); r.code != 0 || !strings.Contains(r.stdout, "[rsgd.step]") || !strings.Contains(r.stdout, "[at.compare]") {
		t.Errorf("step: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, c := range []struct{ want, flag, value string }{
		{"must be at least 1", "--batch", "0"},
		{"B ≤ n", "--batch", "41"},
		{"r = 0", "--r", "0"},
		{"eta = 0", "--eta", "0"},
		{"2/β", "--eta", "2.5"},
		{"not diagonally dominant", "--loss", "coupled"},
		{"use median or trimmed", "--stat", "mean"},
		{"outside the domain", "--theta0", "3,0"},
	} {
		a := slices.Clone(args)
		if i := slices.Index(a, c.flag); i >= 0 {
			a[i+1] = c.value
		} else {
			a = append(a, c.flag, c.value)
		}
		bad(t, c.want, a...)
	}
	bad(t, "k < B/2", append(slices.Clone(args), "--stat", "trimmed", "--trim", "5")...)
	bad(t, "missing --batch", "run", "--mech", "robust-sgd", "--data", "testdata/robust40.csv", "--eps", "1", "--delta", "1e-5")
}

func TestAuditRobustSGD(t *testing.T) {
	args := []string{"audit", "--mech", "robust-sgd", "--data", "testdata/robust40.csv", "--neighbour", "replace:3=10000,10000;10000,10000;10000,10000",
		"--batch", "10", "--r", "1", "--eta", "0.1", "--domain", "1000", "--eps", "1", "--delta", "1e-5", "--mode", "sound", "--order", "given",
		"--threshold", "0", "--monte-carlo", "--runs", "20000"}
	var out struct {
		Test struct {
			Step      int     `json:"step"`
			WorstLoss float64 `json:"worst_loss"`
			Budget    float64 `json:"budget"`
		} `json:"test"`
		Verdict string `json:"verdict"`
	}
	ok(t, &out, args...)
	if out.Verdict != "pass" || out.Test.Step != 1 || out.Test.Budget != 0.5 || out.Test.WorstLoss > 0.5 {
		t.Errorf("sound: %+v", out)
	}
	ok(t, &out, append(args, "--mutant", "no-clip")...)
	if out.Verdict != "violation" {
		t.Errorf("no-clip: %+v", out)
	}
	bad(t, "robust-sgd's broken variants", append(args, "--mutant", "keep-all")...)
}

// Every mechanism leaves the data it runs on as it found it: a stepper
// hands a run its one private copy and keeps it for rerolls, and lessons
// share users between runs.
func TestRunsLeaveTheirDataAlone(t *testing.T) {
	args := map[string][]string{
		privacy.MechDelOutputPert: {"--data", "testdata/three-outliers.csv", "--f", "mean", "--eps", "8", "--delta", "0.1", "--target-sens", "0.1"},
		scenario.MechORME:         {"--data", "testdata/outlier.csv", "--tau", "0.2", "--eps", "8", "--delta", "0.1"},
		scenario.MechDPSGD:        {"--data", "testdata/outlier.csv", "--eps", "8", "--delta", "0.1", "--rk", "1"},
		scenario.MechDPSGDSC:      {"--data", "testdata/tight-2d.csv", "--eps", "8", "--delta", "1e-5", "--rk", "1", "--rx", "2", "--steps", "50"},
		scenario.MechRobustSGD:    {"--scenario", "testdata/robust40.json"},
		scenario.MechOIR:          {"--data", "testdata/robust40.csv", "--eta", "0.5", "--radius", "3", "--eps", "8", "--delta", "1e-5", "--mode", "teaching", "--groups", "4", "--tau", "0.1"},
		scenario.MechAccel:        {"--data", "testdata/robust40.csv", "--radius", "3", "--eps", "8", "--delta", "1e-5", "--mode", "teaching", "--batch", "4", "--tau", "0.1"},
		scenario.MechRobustLoc:    {"--data", "testdata/robust40.csv", "--batch", "5", "--r", "1", "--eta", "0.5", "--domain", "10", "--theta0", "0,0", "--eps", "8", "--delta", "1e-5"},
	}
	for _, m := range []string{scenario.MechSCOutputPert, scenario.MechPhasedERM, scenario.MechPhasedSCO, scenario.MechStronglyConvexERM, scenario.MechStronglyConvexSCO} {
		args[m] = []string{"--data", "testdata/crowd300.csv", "--eps", "8", "--delta", "0.1", "--rk", "1", "--rx", "2", "--phases", "2"}
	}
	for _, m := range runner.Runnable {
		a, ok := args[m]
		if !ok {
			t.Errorf("%s: no run to check here", m)
			continue
		}
		if a[0] != "--scenario" {
			a = append([]string{"--mech", m}, a...)
		}
		in, err := parseRun(&env{stdout: io.Discard, stderr: io.Discard}, a)
		if err != nil {
			t.Errorf("%s: %v", m, err)
			continue
		}
		before := in.data.Clone()
		if _, _, err := in.job.Run(context.Background(), in.data, rng.New(in.seed), nil); err != nil {
			t.Errorf("%s: %v", m, err)
		}
		if !reflect.DeepEqual(in.data, before) {
			t.Errorf("%s changed the data it ran on", m)
		}
	}
}

// Outlier-iterate removal prints the contract's fields; with --order given
// a run can be checked by hand: phase 1 takes the first ⌊½·40/2⌋ = 10
// users, groups are consecutive pairs, and non-private with every group
// kept the output is the mean of the end iterates. Bad input exits 2.
func TestOutlierIterateRemoval(t *testing.T) {
	base := []string{"run", "--mech", "outlier-iterate-removal", "--data", "testdata/robust40.csv", "--eta", "0.5", "--radius", "3",
		"--eps", "8", "--delta", "1e-5", "--q-exp", "1", "--p-exp", "1"}
	var out struct {
		C      int `json:"C"`
		Phases []struct {
			Users       []string    `json:"users"`
			Groups      [][]string  `json:"groups"`
			Unused      []string    `json:"unused"`
			Eta         float64     `json:"eta"`
			Tau         float64     `json:"tau"`
			EndIterates [][]float64 `json:"end_iterates"`
			Score       float64     `json:"score"`
			Counts      []int       `json:"counts"`
			KeepProb    []float64   `json:"keep_prob"`
			Kept        []int       `json:"kept"`
			Passed      bool        `json:"passed"`
			Mean        []float64   `json:"mean"`
			Sigma       float64     `json:"sigma"`
			Output      []float64   `json:"output"`
		} `json:"phases"`
		Output    []float64 `json:"output"`
		Gradients int       `json:"gradient_evaluations"`
		Guarantee struct {
			Mode string `json:"mode"`
		} `json:"guarantee"`
	}
	ok(t, &out, append(base, "--mode", "non-private", "--order", "given", "--groups", "4", "--phases", "1", "--tau", "0.5")...)
	if out.C != 4 || len(out.Phases) != 1 || out.Gradients != 24 {
		t.Fatalf("C = %d, %d phases, %d gradients; want 4, 1, 24", out.C, len(out.Phases), out.Gradients)
	}
	ph := out.Phases[0]
	want := [][]string{{"1", "2"}, {"3", "4"}, {"5", "6"}, {"7", "8"}}
	if !reflect.DeepEqual(ph.Groups, want) || !reflect.DeepEqual(ph.Unused, []string{"9", "10"}) || len(ph.Users) != 10 || ph.Eta != 0.25 {
		t.Errorf("users %v in groups %v (unused %v), η %v; want %v, 9 and 10 unused, η 0.25", ph.Users, ph.Groups, ph.Unused, ph.Eta, want)
	}
	if !ph.Passed || !reflect.DeepEqual(ph.Kept, []int{1, 2, 3, 4}) || !reflect.DeepEqual(ph.Counts, []int{4, 4, 4, 4}) || ph.Sigma != 0 {
		t.Errorf("passed %v, kept %v, counts %v, σ %v; want every group kept, no noise", ph.Passed, ph.Kept, ph.Counts, ph.Sigma)
	}
	for k := range 2 {
		var mean float64
		for _, e := range ph.EndIterates {
			mean += e[k] / 4
		}
		if !(math.Abs(mean-out.Output[k]) <= 1e-12) || ph.Output[k] != out.Output[k] {
			t.Errorf("output %v, want the end iterates' mean", out.Output)
		}
	}
	if out.Guarantee.Mode != "non-private" || ph.Tau <= 0 {
		t.Errorf("guarantee %+v, τ %v", out.Guarantee, ph.Tau)
	}
	bad(t, "paper mode uses the printed constants", append(base, "--groups", "4")...)
	bad(t, "on-empty = zero", append(base, "--on-empty", "zero")...)
	bad(t, "radius", "run", "--mech", "outlier-iterate-removal", "--data", "testdata/robust40.csv", "--eta", "0.5", "--eps", "8", "--delta", "1e-5")
	bad(t, "outside the domain ball", append(base, "--theta0", "5,0")...)
	bad(t, "would give each of the C", append(base, "--on-short", "refuse")...)
	bad(t, "--loss", append(base, "--loss", "absolute")...)
}

// The accelerated variant prints every step; with --order given, one
// phase and a batch of 2 a run can be checked by hand: phase 1 takes the
// first ⌊(1 − 2^{−½})·40/√2⌋ = 8 users, step t the pair 2t − 1, 2t
// (cycling), and non-private every user is kept, so the step's gradient
// is μ(x_q − the pair's item mean) + λ(x_q − x₀).
func TestAcceleratedOutlierRemoval(t *testing.T) {
	base := []string{"run", "--mech", "accelerated-outlier-removal", "--data", "testdata/robust40.csv", "--radius", "3",
		"--eps", "8", "--delta", "1e-5"}
	type step struct {
		Query     []float64 `json:"query"`
		Users     []string  `json:"users"`
		Score     float64   `json:"score"`
		Threshold float64   `json:"threshold"`
		Passed    bool      `json:"passed"`
		Counts    []int     `json:"counts"`
		KeepProb  []float64 `json:"keep_prob"`
		Kept      []string  `json:"kept"`
		Sigma     float64   `json:"sigma"`
		Gradient  []float64 `json:"gradient"`
	}
	type run struct {
		PExp   float64 `json:"p_exp"`
		Phases []struct {
			Users  []string  `json:"users"`
			Lambda float64   `json:"lambda"`
			T      int       `json:"T"`
			Batch  int       `json:"batch"`
			Start  []float64 `json:"start"`
			Steps  []step    `json:"steps"`
			Halted bool      `json:"halted"`
			Output []float64 `json:"output"`
		} `json:"phases"`
		Stop      string    `json:"stop"`
		Output    []float64 `json:"output"`
		Gradients int       `json:"gradient_evaluations"`
		Guarantee struct {
			Preconditions []struct {
				Name string `json:"name"`
				Met  bool   `json:"met"`
			} `json:"preconditions"`
		} `json:"guarantee"`
	}
	var out run
	ok(t, &out, append(base, "--mode", "non-private", "--order", "given", "--batch", "2", "--phases", "1")...)
	if want := 3*0.5 + 2.5 + math.Log(math.Sqrt(3))/math.Log(40); !(math.Abs(out.PExp-want) <= 1e-12) {
		t.Errorf("p = %v, want Theorem C.3's %v", out.PExp, want)
	}
	if len(out.Phases) != 1 {
		t.Fatalf("%d phases, want 1", len(out.Phases))
	}
	ph := out.Phases[0]
	if !reflect.DeepEqual(ph.Users, []string{"1", "2", "3", "4", "5", "6", "7", "8"}) || ph.Batch != 2 || len(ph.Steps) != ph.T || ph.T < 2 {
		t.Fatalf("users %v, K = %d, %d of T = %d steps; want the first 8 users, K = 2, every step", ph.Users, ph.Batch, len(ph.Steps), ph.T)
	}
	if out.Gradients != ph.T*2*3 {
		t.Errorf("%d gradient evaluations, want T·K·m = %d", out.Gradients, ph.T*2*3)
	}
	ds, err := readCSV("testdata/robust40.csv", dataset.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range ph.Steps {
		a, b := (2*i)%8, (2*i+1)%8
		if !reflect.DeepEqual(st.Users, []string{ph.Users[a], ph.Users[b]}) || !reflect.DeepEqual(st.Kept, st.Users) ||
			!reflect.DeepEqual(st.Counts, []int{2, 2}) || !reflect.DeepEqual(st.KeepProb, []float64{1, 1}) || !st.Passed || st.Sigma != 0 {
			t.Fatalf("step %d: %+v; want users %s and %s, both kept, no noise", i+1, st, ph.Users[a], ph.Users[b])
		}
		for c := range 2 {
			var z float64
			for _, u := range []int{a, b} {
				for j := range 3 {
					z += ds.Item(u, j)[c] / 6
				}
			}
			want := (st.Query[c] - z) + ph.Lambda*(st.Query[c]-ph.Start[c])
			if !(math.Abs(st.Gradient[c]-want) <= 1e-12) {
				t.Errorf("step %d: G[%d] = %v, want μ(x_q − z̄) + λ(x_q − x₀) = %v", i+1, c, st.Gradient[c], want)
			}
		}
	}
	if !reflect.DeepEqual(out.Output, ph.Output) || ph.Halted {
		t.Errorf("output %v, phase output %v (halted %v)", out.Output, ph.Output, ph.Halted)
	}

	// A radius too small for the data fails a check: the phase returns 0;
	// with --abort-on-halt the run stops there.
	out = run{}
	ok(t, &out, append(base, "--mode", "teaching", "--batch", "4", "--tau", "0.001", "--abort-on-halt")...)
	last := out.Phases[len(out.Phases)-1]
	if !last.Halted || last.Steps[len(last.Steps)-1].Passed || out.Stop == "" || math.Hypot(last.Output[0], last.Output[1]) != 0 {
		t.Errorf("τ tiny: halted %v, stop %q, output %v; want a failed check, an abort, 0", last.Halted, out.Stop, last.Output)
	}
	out = run{}
	ok(t, &out, append(base, "--with-replacement")...)
	for _, p := range out.Guarantee.Preconditions {
		if strings.Contains(p.Name, "subset") && p.Met {
			t.Errorf("with replacement, precondition %q is met", p.Name)
		}
	}
	bad(t, "no corrected calibration", append(base, "--mode", "sound")...)
	bad(t, "on-empty = start", append(base, "--on-empty", "start")...)
	bad(t, "users per step, but the phase has", append(base, "--on-oversize", "refuse")...)
	bad(t, "paper mode uses the printed constants", append(base, "--batch", "2")...)
	bad(t, "radius", "run", "--mech", "accelerated-outlier-removal", "--data", "testdata/robust40.csv", "--eps", "8", "--delta", "1e-5")
	bad(t, "--on-oversize", append(base, "--on-oversize", "grow")...)
}

// The audit of outlier-iterate removal: one phase of 20 single-user groups
// whose one step lands on the item; user 1 thrown far away. The correct
// phase passes (its gate spends exactly ε_g), keep-all is caught exactly.
// The accelerated variant is audited by sampling only.
func TestAuditOutlierRemoval(t *testing.T) {
	var b strings.Builder
	b.WriteString("user,x1,x2\n")
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 80 {
		fmt.Fprintf(&b, "%d,%.5f,%.5f\n", i+1, 0.01*r.NormFloat64(), 0.01*r.NormFloat64())
	}
	data := filepath.Join(t.TempDir(), "cluster80.csv")
	if err := os.WriteFile(data, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"audit", "--mech", "outlier-iterate-removal", "--data", data, "--neighbour", "replace:1=500,500", "--eta", "2", "--p-exp", "1",
		"--q-exp", "1", "--radius", "1000", "--lipschitz", "1", "--groups", "20", "--phases", "1", "--tau", "0.1", "--order", "given",
		"--eps", "1", "--delta", "1e-5", "--mode", "sound"}
	var out struct {
		Exact struct {
			Phase      int     `json:"phase"`
			Group      int     `json:"group"`
			GateLoss   float64 `json:"gate_loss"`
			GateBudget float64 `json:"gate_budget"`
			Points     []struct {
				Verdict string `json:"verdict"`
			} `json:"points"`
		} `json:"exact"`
		MonteCarlo *struct {
			Runs int `json:"runs"`
		} `json:"monte_carlo"`
		Verdict string `json:"verdict"`
	}
	ok(t, &out, append(args, "--monte-carlo", "--runs", "2000")...)
	if out.Verdict != "pass" || out.Exact.Phase != 1 || out.Exact.Group != 1 || !(math.Abs(out.Exact.GateLoss-out.Exact.GateBudget) <= 1e-9) ||
		out.MonteCarlo == nil || out.MonteCarlo.Runs != 2000 {
		t.Errorf("correct: %+v; want a pass with the gate at its budget", out)
	}
	ok(t, &out, append(args, "--mutant", "keep-all")...)
	if out.Verdict != "violation" || len(out.Exact.Points) != 1 || out.Exact.Points[0].Verdict != "VIOLATION" {
		t.Errorf("keep-all: %+v; want caught by the exact δ(ε)", out)
	}
	bad(t, "broken variants are", append(args, "--mutant", "no-clip")...)
	// A neighbour equal to A: the text says so, not that no phase holds
	// the changed user.
	same := slices.Clone(args)
	same[slices.Index(same, "replace:1=500,500")] = "replace:1=" + strings.Join(strings.Split(strings.Split(b.String(), "\n")[1], ",")[1:], ",")
	if r := uldp(t, append(same, "--format", "text")...); r.code != 0 || !strings.Contains(r.stdout, "A and B are the same dataset") {
		t.Errorf("an equal neighbour: exit %d, %q", r.code, r.stdout)
	}
	accel := []string{"audit", "--mech", "accelerated-outlier-removal", "--data", "testdata/robust40.csv", "--neighbour", "replace:1=9,9;9,9;9,9",
		"--radius", "30", "--eps", "8", "--delta", "1e-5", "--mode", "teaching", "--batch", "4", "--tau", "0.1", "--phases", "2"}
	bad(t, "add --monte-carlo", accel...)
	var mc struct {
		MonteCarlo struct {
			Runs     int     `json:"runs"`
			EpsLower float64 `json:"eps_lower"`
		} `json:"monte_carlo"`
		Verdict string `json:"verdict"`
	}
	ok(t, &mc, append(accel, "--monte-carlo", "--runs", "500")...)
	if mc.MonteCarlo.Runs != 500 || mc.Verdict == "" {
		t.Errorf("accelerated: %+v", mc)
	}
}

// The built-in pack: list, the instructor's key graded full marks, a wrong
// answer graded wrong with feedback, and bad packs and answers refused with
// their place.
func TestExercisesAndGrade(t *testing.T) {
	var list []struct {
		ID, Lesson, Kind, Question string
	}
	ok(t, &list, "exercises", "list")
	if len(list) < 16 || list[0].ID == "" || list[0].Lesson == "" || list[0].Question == "" {
		t.Fatalf("list: %+v", list)
	}
	dir := t.TempDir()
	key := uldp(t, "exercises", "solve")
	if key.code != 0 {
		t.Fatalf("solve: exit %d: %s", key.code, key.stderr)
	}
	keyFile := filepath.Join(dir, "key.json")
	os.WriteFile(keyFile, []byte(key.stdout), 0o644)
	var report struct {
		Score, Total int
		Results      []struct {
			ID       string
			Correct  bool
			Feedback string
		}
	}
	ok(t, &report, "grade", "--answers", keyFile)
	if report.Score != report.Total || report.Total != len(list) {
		t.Errorf("the key scores %d of %d", report.Score, report.Total)
	}
	wrong := filepath.Join(dir, "wrong.json")
	os.WriteFile(wrong, []byte(`{"answers": {"user-level-sensitivity": 0.05, "user-level-ratio": "they are equal"}}`), 0o644)
	ok(t, &report, "grade", "--answers", wrong)
	var solved struct{ Answers map[string]json.RawMessage }
	var sens float64
	if json.Unmarshal([]byte(key.stdout), &solved) != nil || json.Unmarshal(solved.Answers["user-level-sensitivity"], &sens) != nil {
		t.Fatalf("the key: %s", key.stdout)
	}
	shows := "the lesson shows " + strconv.FormatFloat(sens, 'g', 4, 64)
	if report.Score != 0 || !strings.Contains(report.Results[0].Feedback, shows) || !strings.Contains(report.Results[2].Feedback, "not answered") {
		t.Errorf("wrong answers: %+v", report)
	}
	badPack := filepath.Join(dir, "pack.json")
	os.WriteFile(badPack, []byte(`{"version": 1, "title": "t", "exercises": [{"id": "a", "lesson": "calibration", "kind": "numeric", "question": "q", "explanation": "e", "answer": {"value": 1, "tolerence": 0}}]}`), 0o644)
	bad(t, `exercises[0] (a).answer: unknown field "tolerence" (did you mean "tolerance"?)`, "exercises", "list", "--pack", badPack)
	os.WriteFile(badPack, []byte(`{"version": 1, "title": "t", "exercises": [{"id": "a", "lesson": "calibrations", "kind": "numeric", "question": "q", "explanation": "e", "answer": {"value": 1}}]}`), 0o644)
	bad(t, "exercises about no lesson of ULDP Lab: a (calibrations)", "exercises", "list", "--pack", badPack)
	os.WriteFile(wrong, []byte(`{"answers": {"no-such": 1}}`), 0o644)
	bad(t, "answers.no-such: the pack has no exercise", "grade", "--answers", wrong)
	bad(t, "missing --answers", "grade")
	bad(t, "uldp exercises list", "exercises", "show")
}

// A class's hand-ins graded at once: a directory of them into a CSV
// gradebook (right answers a point each, wrong ones none, a student's formula
// kept from the spreadsheet, a bad hand-in's row saying why and the exit
// status 2), files into a JSON one, and one submission into Gradescope's
// results.json in its documented shape.
func TestGradebook(t *testing.T) {
	key := uldp(t, "exercises", "solve", "--student", "Ada") // her own numbers
	if key.code != 0 {
		t.Fatalf("solve: exit %d: %s", key.code, key.stderr)
	}
	var k struct{ Answers map[string]json.RawMessage }
	if err := json.Unmarshal([]byte(key.stdout), &k); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, student string, answers map[string]json.RawMessage) string {
		b, _ := json.Marshal(map[string]any{"pack": "builtin", "student": student, "answers": answers})
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	// Answers about lesson 1 only: each grading process computes its keys
	// afresh, and the whole key is graded in TestExercisesAndGrade.
	some := map[string]json.RawMessage{}
	for _, id := range []string{"user-level-sensitivity", "user-level-ratio", "user-level-radius"} {
		some[id] = k.Answers[id]
	}
	ada := write("a.json", "Ada", some)
	bob := write("b.json", "Bob", map[string]json.RawMessage{"user-level-sensitivity": json.RawMessage("0.05"), "user-level-ratio": k.Answers["user-level-ratio"]})
	write("c.json", "=HYPERLINK(\"x\")", map[string]json.RawMessage{"user-level-ratio": json.RawMessage("0")})
	write("d.json", "Dan", map[string]json.RawMessage{"no-such": json.RawMessage("1")})

	r := uldp(t, "grade", "--answers", dir, "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if r.code != 2 || err != nil || len(rows) != 5 || !strings.Contains(r.stderr, "1 of 4 hand-ins could not be graded") {
		t.Fatalf("exit %d, %d rows (%v), stderr %q\n%s", r.code, len(rows), err, r.stderr, r.stdout)
	}
	n := len(k.Answers)
	head := rows[0]
	if len(head) != n+5 || head[0] != "student" || head[2] != "user-level-sensitivity" || head[n+2] != "score" || head[n+4] != "error" {
		t.Fatalf("header %q", head)
	}
	total := strconv.Itoa(n)
	for i, want := range [][]string{
		{"Ada", "3", ""}, {"Bob", "1", ""}, {"'=HYPERLINK(\"x\")", "0", ""}, {"Dan", "0", "the pack has no exercise"},
	} {
		row := rows[i+1]
		if row[0] != want[0] || row[n+2] != want[1] || row[n+3] != total || !strings.Contains(row[n+4], want[2]) || (want[2] == "") != (row[n+4] == "") {
			t.Errorf("row %d: %q", i+1, row)
		}
	}
	if rows[2][2] != "0" || rows[2][3] != "1" || rows[4][2] != "" {
		t.Errorf("Bob's points %q, Dan's %q", rows[2][2:4], rows[4][2])
	}

	var book struct {
		Exercises []string
		Handins   []struct {
			Student      string
			Score, Total int
			Points       map[string]int
		}
	}
	ok(t, &book, "grade", "--answers", ada, bob)
	if len(book.Handins) != 2 || book.Handins[0].Score != 3 || book.Handins[1].Points["user-level-ratio"] != 1 || len(book.Exercises) != n {
		t.Errorf("JSON gradebook: %+v", book)
	}
	// Ada's answers handed in as Dee's are graded against Dee's numbers: the
	// two exercises that vary are wrong, the one that does not is right.
	dee := write("dee.json", "Dee", some)
	var report struct{ Score int }
	ok(t, &report, "grade", "--answers", dee)
	if report.Score != 1 {
		t.Errorf("Ada's answers as Dee's score %d, want 1 (the choice)", report.Score)
	}

	// Gradescope's documented results.json: score, and tests each with a
	// score, max_score, a status of passed or failed, a name and output.
	gs := uldp(t, "grade", "--answers", bob, "--format", "gradescope")
	var top map[string]json.RawMessage
	if gs.code != 0 || json.Unmarshal([]byte(gs.stdout), &top) != nil {
		t.Fatalf("gradescope: exit %d %s%s", gs.code, gs.stderr, gs.stdout)
	}
	allowed := map[string]bool{"score": true, "execution_time": true, "output": true, "tests": true}
	for f := range top {
		if !allowed[f] {
			t.Errorf("results.json has a field %q outside the format", f)
		}
	}
	var res struct {
		Score float64
		Tests []map[string]any
	}
	_ = json.Unmarshal([]byte(gs.stdout), &res)
	sum := 0.0
	for _, tc := range res.Tests {
		score, _ := tc["score"].(float64)
		status, _ := tc["status"].(string)
		name, _ := tc["name"].(string)
		_, out := tc["output"].(string)
		if tc["max_score"] != 1.0 || (status == "passed") != (score == 1) || (status != "passed" && status != "failed") || name == "" || !out {
			t.Errorf("test %v", tc)
		}
		sum += score
	}
	if len(res.Tests) != n || res.Score != 1 || sum != res.Score {
		t.Errorf("gradescope: score %v over %d tests summing to %v", res.Score, len(res.Tests), sum)
	}
	bad(t, "give one hand-in, not 2", "grade", "--answers", ada, bob, "--format", "gradescope")
	bad(t, "a directory with no hand-ins", "grade", "--answers", t.TempDir())
	bad(t, `--format "xml"`, "grade", "--answers", ada, "--format", "xml")
}

// Paper 003 on the command line: the MWU step's golden values, PVMW's
// calibration, a training run on a generated file, its steps, and the
// refusals.
func TestSemiSensitive(t *testing.T) {
	var st struct {
		P         [][]float64
		Error     float64
		PsiBefore float64 `json:"psi_before"`
	}
	ok(t, &st, "run", "--mech", "mwu-step", "--input", "testdata/mwu-step.json")
	var psi struct {
		After float64 `json:"psi_after"`
	}
	ok(t, &psi, "run", "--mech=mwu-step", "--input", "testdata/mwu-step.json")
	want := [][]float64{{0.349942742085, 0.402082960184, 0.247974297731}, {0.430044983932, 0.304735861209, 0.265219154859}}
	for i, row := range want {
		for y, p := range row {
			if !(math.Abs(st.P[i][y]-p) <= 1e-11) {
				t.Errorf("p[%d][%d] = %.12g, want %.12g", i, y, st.P[i][y], p)
			}
		}
	}
	if !(math.Abs(st.Error-0.790768598900) <= 1e-11) || !(math.Abs(psi.After-0.877481152504) <= 1e-11) || !(math.Abs(st.PsiBefore-math.Log(3)) <= 1e-12) {
		t.Errorf("error %.12g, Ψ %.12g → %.12g", st.Error, st.PsiBefore, psi.After)
	}
	dir := t.TempDir()
	step := func(body string) string {
		f := filepath.Join(dir, "step.json")
		os.WriteFile(f, []byte(body), 0o644)
		return f
	}
	bad(t, "η = 0.5: the learning rate must be in (0, 1/c]", "run", "--mech", "mwu-step", "--input", step(`{"values": [[[1], [0]]], "v": [1], "iota": 1, "eta": 0.5, "c": 3}`))
	bad(t, "k ≥ 2 candidates", "run", "--mech", "mwu-step", "--input", step(`{"values": [[[1]]], "v": [1], "iota": 1, "eta": 0.1, "c": 3}`))
	bad(t, "truth[0] = 3: sensitive values are 1…2", "run", "--mech", "mwu-step", "--input", step(`{"values": [[[1], [0]]], "v": [1], "iota": 1, "eta": 0.1, "c": 3, "truth": [3]}`))
	bad(t, "norm 2 > 1", "run", "--mech", "mwu-step", "--input", step(`{"values": [[[2], [0]]], "v": [1], "iota": 1, "eta": 0.1, "c": 3}`))
	bad(t, `unknown field "eta2"`, "run", "--mech", "mwu-step", "--input", step(`{"values": [[[1], [0]]], "v": [1], "iota": 1, "eta2": 0.1, "c": 3}`))
	bad(t, "iota is missing", "run", "--mech", "mwu-step", "--input", step(`{"values": [[[1], [0]]], "v": [1], "eta": 0.1, "c": 3}`))
	bad(t, "--eps is pvmw's", "run", "--mech", "mwu-step", "--input", "testdata/mwu-step.json", "--eps", "1")

	var cal struct {
		EpsPrime float64 `json:"eps_prime"`
		Sigma    float64
		BQuery   float64 `json:"b_query"`
		SG       float64 `json:"s_g"`
	}
	ok(t, &cal, "calibrate", "--mech", "pvmw", "--rho", "0.2539", "--lmax", "20", "--n", "5000", "--calibration", "paper")
	if !(math.Abs(cal.SG-2*cal.Sigma/5000) <= 1e-15) || !(math.Abs(cal.BQuery-8/(cal.EpsPrime*5000)) <= 1e-15) {
		t.Errorf("calibration %+v", cal)
	}
	bad(t, "ρ = 0", "calibrate", "--mech", "pvmw", "--rho", "0", "--lmax", "20", "--n", "5000")
	bad(t, "missing --n", "calibrate", "--mech", "pvmw", "--rho", "1", "--lmax", "20")
	bad(t, "give --rho, --lmax and --n", "calibrate", "--mech", "pvmw", "--eps", "1", "--rho", "1", "--lmax", "20", "--n", "5")

	csv := filepath.Join(dir, "semi.csv")
	var gen map[string]any
	ok(t, &gen, "dataset", "gen", "--kind", "semi-sensitive", "--n", "5000", "--k", "8", "--d", "4", "--out", csv)
	var run struct {
		Queries, Updates int
		Failed           bool
		Psi              []float64
		Problems         []struct{ Excess float64 }
		Guarantee        struct{ Eps, Delta float64 }
	}
	ok(t, &run, "run", "--mech", "pvmw", "--data", csv, "--k", "8", "--eps", "4", "--delta", "1e-6")
	if run.Queries != 100 || run.Updates == 0 || run.Failed || len(run.Problems) != 1 || !(math.Abs(run.Guarantee.Eps-4) <= 1e-9) || len(run.Psi) != 101 {
		t.Errorf("pvmw run: %+v", run)
	}
	if r := uldp(t, "step", "--mech", "pvmw", "--data", csv, "--k", "8", "--eps", "4", "--delta", "1e-6", "--to", "3"); r.code != 0 || !strings.Contains(r.stdout, "step 3 of") || !strings.Contains(r.stdout, "[pvmw.test]") {
		t.Errorf("step: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	bad(t, "missing --k", "run", "--mech", "pvmw", "--data", csv, "--eps", "4", "--delta", "1e-6")
	bad(t, "sensitive value \"8\"", "run", "--mech", "pvmw", "--data", csv, "--k", "7", "--eps", "4", "--delta", "1e-6")
	bad(t, "k = 1", "run", "--mech", "pvmw", "--data", csv, "--k", "1", "--eps", "4", "--delta", "1e-6")
	bad(t, "η = 1", "run", "--mech", "pvmw", "--data", csv, "--k", "8", "--eps", "4", "--delta", "1e-6", "--c", "3")
	bad(t, "ε", "run", "--mech", "pvmw", "--data", csv, "--k", "8", "--eps", "0", "--delta", "1e-6")
	bad(t, "--input is mwu-step's", "run", "--mech", "pvmw", "--input", "x.json")

	// The audit: a replay on a neighbour, and the Monte Carlo's views.
	var rep struct {
		Replay struct {
			Identical bool
			Answers   int
			Reads     int `json:"sensitive_reads"`
		}
		Verdict string
	}
	ok(t, &rep, "audit", "--mech", "pvmw", "--data", csv, "--k", "8", "--eps", "4", "--delta", "1e-6", "--neighbour", "replace:1=3")
	if !rep.Replay.Identical || rep.Replay.Answers != 100 || rep.Replay.Reads != 0 || rep.Verdict != "pass" {
		t.Errorf("replay: %+v", rep)
	}
	var mc struct {
		Views []struct {
			View       string
			MonteCarlo struct{ Verdict string } `json:"monte_carlo"`
		}
		Verdict string
	}
	ok(t, &mc, "audit", "--mech", "pvmw", "--view", "gate", "--mutant", "no-threshold-noise")
	if len(mc.Views) != 1 || mc.Verdict != "violation" {
		t.Errorf("the gate without threshold noise: %+v", mc)
	}
	bad(t, "--neighbour needs --data", "audit", "--mech", "pvmw", "--neighbour", "replace:1=2")
	bad(t, `mutant "loud"`, "audit", "--mech", "pvmw", "--mutant", "loud")
	bad(t, "write replace:I=Y", "audit", "--mech", "pvmw", "--data", csv, "--k", "8", "--eps", "4", "--delta", "1e-6", "--neighbour", "replace:1")
	bad(t, "sensitive value 9", "audit", "--mech", "pvmw", "--data", csv, "--k", "8", "--eps", "4", "--delta", "1e-6", "--neighbour", "replace:1=9")
}

// The hostile command lines of the second trust round: each is refused
// with exit 2 and a message naming what is wrong, none runs or hangs.
func TestHostileCommandLinesRefused(t *testing.T) {
	dir := t.TempDir()
	semi := filepath.Join(dir, "semi.csv")
	if r := uldp(t, "dataset", "gen", "--kind", "semi-sensitive", "--n", "200", "--k", "4", "--d", "2", "--out", semi); r.code != 0 {
		t.Fatalf("dataset gen: %s", r.stderr)
	}
	labelsOnly := filepath.Join(dir, "labels.csv")
	negIota := filepath.Join(dir, "neg-iota.json")
	step, err := os.ReadFile("testdata/mwu-step.json")
	if err != nil {
		t.Fatal(err)
	}
	for path, data := range map[string]string{
		labelsOnly: "label,sensitive\n1,1\n-1,2\n",
		negIota:    regexp.MustCompile(`"iota":\s*[-0-9.e]+`).ReplaceAllString(string(step), `"iota": -0.5`),
	} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	pvmw := []string{"run", "--mech", "pvmw", "--data", semi, "--k", "4", "--eps", "4", "--delta", "1e-6"}
	sc := []string{"run", "--mech", "dp-sgd-sc", "--data", "testdata/tight-2d.csv", "--eps", "8", "--delta", "1e-5", "--rk", "1", "--rx", "2"}
	for _, c := range []struct {
		want string
		args []string
	}{
		{"a line is longer than", []string{"run", "--mech", "pvmw", "--data", "/dev/zero", "--k", "8", "--eps", "4", "--delta", "1e-6"}},
		{"has no public features", []string{"run", "--mech", "pvmw", "--data", labelsOnly, "--k", "4", "--eps", "4", "--delta", "1e-6"}},
		{"is a directory", []string{"run", "--mech", "mwu-step", "--input", dir}},
		{"iota = -0.5", []string{"run", "--mech", "mwu-step", "--input", negIota}},
		{"--zeta = 0", append(pvmw, "--zeta", "0")},
		{"--mode paper", append(pvmw, "--mode", "paper")},
		{"d_pub = 0", []string{"dataset", "gen", "--kind", "semi-sensitive", "--n", "10", "--k", "3", "--d", "0", "--out", "-"}},
		{"effect = -1", []string{"dataset", "gen", "--kind", "semi-sensitive", "--n", "10", "--k", "3", "--d", "1", "--effect", "-1", "--out", "-"}},
		{"--spread is for the users' generators", []string{"dataset", "gen", "--kind", "semi-sensitive", "--n", "10", "--k", "3", "--d", "1", "--spread", "2", "--out", "-"}},
		{"give how many steps", []string{"step", "--mech", "deloutputpert", "--data", "testdata/three-outliers.csv", "--f", "mean", "--eps", "8", "--delta", "0.1", "--target-sens", "0.1", "--to", "-1"}},
		{"--steps = -1", append(sc, "--steps", "-1")},
		{"--steps = 0", append(sc, "--steps", "0")},
		{"--eta does not apply to dp-sgd-sc", append(sc, "--eta", "NaN")},
		{"--tau does not apply to dp-sgd-sc", append(sc, "--tau", "-1")},
		{"--lambda does not apply to dp-sgd-sc", append(sc, "--lambda", "-1")},
		{"--phases does not apply to dp-sgd-sc", append(sc, "--phases", "-1")},
		{"--smoothing does not apply to dp-sgd-sc", append(sc, "--smoothing", "NaN")},
		{"theta0 has 1 coordinates, the data 2", append(sc, "--theta0", "1")},
		{"--p-exp = 1e+308", []string{"run", "--mech", "outlier-iterate-removal", "--data", "testdata/robust40.csv", "--eta", "0.5", "--radius", "3", "--eps", "8", "--delta", "1e-5", "--p-exp", "1e308"}},
		{"--phases = 1000000000", []string{"run", "--mech", "outlier-iterate-removal", "--data", "testdata/robust40.csv", "--eta", "0.5", "--radius", "3", "--eps", "8", "--delta", "1e-5", "--phases", "1000000000"}},
		{"add --loss huber", []string{"run", "--mech", "robust-sgd", "--data", "testdata/robust40.csv", "--batch", "10", "--r", "1", "--eta", "0.2", "--domain", "2", "--eps", "1", "--delta", "1e-5", "--huber", "NaN"}},
	} {
		bad(t, c.want, c.args...)
	}
}
