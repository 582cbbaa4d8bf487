package scenario

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/privacy"
)

func load(t *testing.T, path string) *Scenario {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return s
}

func TestDecodeFiles(t *testing.T) {
	s := load(t, "testdata/outliers.json")
	if s.Mechanism != "deloutputpert" || s.Mode != privacy.Teaching || s.Seed != 42 || s.Params.Sens != 0.1 || s.Generator.Outliers != 3 {
		t.Errorf("decoded %+v", s)
	}
	d, err := s.Build()
	if err != nil || d.N() != 16 {
		t.Fatalf("Build: %v", err)
	}
	again, _ := s.Build()
	if !reflect.DeepEqual(d, again) {
		t.Error("Build is not deterministic")
	}

	in := load(t, "testdata/inline.json")
	if in.Mode != privacy.Paper || in.Data.N() != 2 || in.Data.Users[1].ID != "bob" {
		t.Errorf("inline: %+v", in)
	}
	d, _ = in.Build()
	d.Users[0].Points[0] = 99
	if in.Data.Users[0].Points[0] == 99 {
		t.Error("Build returned the scenario's own dataset, not a copy")
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	for _, path := range []string{"testdata/outliers.json", "testdata/inline.json"} {
		s := load(t, path)
		var buf bytes.Buffer
		if err := Encode(&buf, s); err != nil {
			t.Fatal(err)
		}
		back, err := Decode(&buf)
		if err != nil {
			t.Fatalf("%s: re-decoding: %v\n%s", path, err, buf.String())
		}
		if !reflect.DeepEqual(s, back) {
			t.Errorf("%s: round trip changed the scenario", path)
		}
	}
}

const valid = `{"version":1,"generator":{"kind":"gaussian","n":3,"m":2,"d":2},"mechanism":"deloutputpert","params":{"eps":1,"delta":0.1,"sens":0.5}}`

func TestRejections(t *testing.T) {
	for _, c := range []struct {
		old, new string // edit of the valid scenario
		want     string
	}{
		{`"version":1`, `"version":2`, "reads scenario version 1"},
		{`"version":1,`, ``, "version is missing"},
		{`"mechanism":"deloutputpert"`, `"mechanism":"magic"`, `use one of`},
		{`"mechanism":"deloutputpert"`, `"mechansim":"deloutputpert"`, `did you mean "mechanism"`},
		{`"eps":1`, `"eps":0`, "params.eps: eps = 0"},
		{`"eps":1`, `"eps":-3`, "params.eps"},
		{`"eps":1`, `"eps":"1"`, "params.eps: expected a number, got string"},
		{`"eps":1`, `"eps":1e999`, "params"},
		{`"delta":0.1`, `"delta":1`, "params.delta: delta = 1"},
		{`"delta":0.1`, `"delta":0`, "params.delta"},
		{`"delta":0.1,`, ``, "params.delta is missing: deloutputpert needs eps, delta, sens"},
		{`"sens":0.5`, `"sens":0.5,"epsilon":1`, `params: unknown field "epsilon"`},
		{`"sens":0.5`, `"sens":0.5,"kappa":0`, "params.kappa: κ must be ≥ 1"},
		{`"sens":0.5`, `"sens":0.5,"rule":"magic"`, "params.rule"},
		{`"sens":0.5`, `"sens":0.5,"queries":1.5`, "params.queries: expected a whole number"},
		{`"sens":0.5`, `"sens":0.5,"beta":0.5`, "params.beta: the failure probability β must be in (0, 0.3679)"},
		{`"sens":0.5`, `"sens":0.5,"sens_rule":"loose"`, `params.sens_rule: the Δ rule "loose": use paper or corollary`},
		{`"sens":0.5`, `"sens":0.5,"rk":-1`, "params.rk: the domain radius R_K must be"},
		{`"sens":0.5`, `"sens":0.5,"phases":0`, "params.phases"},
		{`"mechanism":"deloutputpert"`, `"mechanism":"phased-erm"`, "params.rk is missing: phased-erm needs eps, delta, rk, rx"},
		{`"n":3`, `"n":-1`, "generator: n = -1"},
		{`"n":3`, `"n":0`, "generator: n = 0"},
		{`"d":2`, `"d":2,"centre":[0,0]`, `did you mean "center"`},
		{`"kind":"gaussian",`, ``, "generator.kind is missing"},
		{`"n":3,"m":2,"d":2`, `"n":100000,"m":100,"d":10`, "cap"},
		{`"generator":{"kind":"gaussian","n":3,"m":2,"d":2}`, `"dataset":{"dim":1,"users":[{"id":"a","items":[[1]]}]},"generator":{"kind":"gaussian","n":3,"m":2,"d":2}`, "both dataset and generator"},
		{`"generator":{"kind":"gaussian","n":3,"m":2,"d":2},`, ``, "no data"},
		{`"generator":{"kind":"gaussian","n":3,"m":2,"d":2}`, `"dataset":{"dim":1,"users":[]}`, "dataset: no users"},
		{`"generator":{"kind":"gaussian","n":3,"m":2,"d":2}`, `"dataset":{"dim":1,"users":[{"id":"a","items":[[1]]},{"id":"b","items":[[1],[2]]}]}`, "same number of items"},
		{`"generator":{"kind":"gaussian","n":3,"m":2,"d":2}`, `"dataset":{"dim":2,"users":[{"id":"a","items":[[1]]}]}`, "dim = 2"},
		{`"params":{"eps":1,"delta":0.1,"sens":0.5}`, `"params":[1]`, "params must be a JSON object"},
		{`"sens":0.5}}`, `"sens":0.5},"mode":"toy"}`, `mode "toy"`},
		{`"sens":0.5}}`, `"sens":0.5},"seed":-1}`, "seed: expected a whole number"},
		{`"sens":0.5}}`, `"sens":0.5},}`, "invalid JSON at line 1"},
	} {
		in := strings.Replace(valid, c.old, c.new, 1)
		if in == valid {
			t.Fatalf("edit %q → %q did not apply", c.old, c.new)
		}
		_, err := Decode(strings.NewReader(in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n  error: %v\n  want it to mention %q", in, err, c.want)
		}
	}
	if _, err := Decode(strings.NewReader(valid)); err != nil {
		t.Fatalf("the valid base scenario failed: %v", err)
	}
	// The path is said once, not once per layer that passed the error on.
	in := strings.Replace(valid, `"generator":{"kind":"gaussian","n":3,"m":2,"d":2}`, `"dataset":{"dim":1,"users":[{"id":"a","points":[1]}]}`, 1)
	if _, err := Decode(strings.NewReader(in)); err == nil || !strings.HasPrefix(err.Error(), `dataset: unknown field "points"`) {
		t.Errorf("misspelt items: %v", err)
	}
	// A long unknown key is quoted in part, not in full.
	long := `{"` + strings.Repeat("é", 1<<16) + `": 1}`
	if _, err := Decode(strings.NewReader(long)); err == nil || len(err.Error()) > 1000 || !strings.Contains(err.Error(), "unknown field") {
		t.Errorf("a 64k-rune unknown key: %.200v (%d bytes)", err, len(err.Error()))
	}
	// A syntax error is located by line and column, counted from 1.
	for in, want := range map[string]string{
		"{\n  \"version\": 1,\n  x}": "line 3, column 3",
		"{\"version\": 1,}":          "line 1, column 15",
		"{\n\n":                      "line 3, column 1",
	} {
		if _, err := Decode(strings.NewReader(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want it to say %q", in, err, want)
		}
	}
	for _, in := range []string{"", "null", "[]", "42", `"x"`} {
		if _, err := Decode(strings.NewReader(in)); err == nil || err.Error() == "" {
			t.Errorf("Decode(%q) = %v", in, err)
		}
	}
}

func TestMechanismNames(t *testing.T) {
	names := MechanismNames()
	for _, want := range []string{"deloutputpert", "laplace", "orme"} {
		found := false
		for _, n := range names {
			found = found || n == want
		}
		if !found {
			t.Errorf("MechanismNames() = %v lacks %q", names, want)
		}
	}
	need, ok := Requires("laplace")
	if !ok || !reflect.DeepEqual(need, []string{"eps", "sens"}) {
		t.Errorf("Requires(laplace) = %v, %v", need, ok)
	}
}

// FuzzDecode: the decoder never panics, every rejection has a message, and
// whatever it accepts survives an Encode/Decode round trip unchanged.
func FuzzDecode(f *testing.F) {
	for _, path := range []string{"testdata/outliers.json", "testdata/inline.json"} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(valid))
	f.Add([]byte(`{"version":1,"dataset":{"dim":1,"users":[{"id":"a","items":[[1e308]]}]},"mechanism":"laplace","params":{"eps":1e-300,"sens":1e300}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := Decode(bytes.NewReader(b))
		if err != nil {
			if strings.TrimSpace(err.Error()) == "" {
				t.Fatalf("rejection without a message for %q", b)
			}
			return
		}
		// Building a generator spec near the 10⁷-value cap takes a second;
		// keep fuzz time for the decoder.
		if g := s.Generator; g == nil || g.N*g.M*g.D <= 10_000 {
			if _, err := s.Build(); err != nil && err.Error() == "" {
				t.Fatal("Build failed without a message")
			}
		}
		var buf bytes.Buffer
		if err := Encode(&buf, s); err != nil {
			t.Fatalf("accepted scenario does not encode: %v", err)
		}
		back, err := Decode(&buf)
		if err != nil {
			t.Fatalf("accepted scenario does not re-decode: %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(s, back) {
			t.Fatalf("round trip changed the scenario:\n%+v\n%+v", s, back)
		}
	})
}
