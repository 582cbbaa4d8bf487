package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/rng"
)

func gen(t *testing.T, s Spec, seed uint64) *Dataset {
	t.Helper()
	d, err := Generate(s, rng.New(seed))
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Validate(false); err != nil {
		t.Fatal(err)
	}
	return d
}

func TestGenerateShapesAndDeterminism(t *testing.T) {
	for _, kind := range Kinds {
		s := Spec{Kind: kind, N: 12, M: 4, D: 3}
		a, b := gen(t, s, 1), gen(t, s, 1)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: same seed, different data", kind)
		}
		if reflect.DeepEqual(a, gen(t, s, 2)) {
			t.Errorf("%s: seeds 1 and 2 gave the same data", kind)
		}
		if a.N() != 12 || a.Dim != 3 {
			t.Errorf("%s: shape %d×?×%d", kind, a.N(), a.Dim)
		}
		if m, ok := a.M(); !ok || m != 4 {
			t.Errorf("%s: M() = %d, %v", kind, m, ok)
		}
		if a.Users[0].ID != "1" || a.Users[11].ID != "12" {
			t.Errorf("%s: ids %q…%q, want 1…12", kind, a.Users[0].ID, a.Users[11].ID)
		}
	}
}

func TestRerollingPermKeepsTheItems(t *testing.T) {
	s := Spec{Kind: Gaussian, N: 10, M: 3, D: 2}
	streams := rng.New(4)
	a, _ := Generate(s, streams.Fresh())
	streams.Reroll(rng.Perm)
	b, _ := Generate(s, streams.Fresh())
	if reflect.DeepEqual(a, b) {
		t.Fatal("re-rolling the allocation changed nothing")
	}
	multiset := func(d *Dataset) map[[2]float64]int {
		out := map[[2]float64]int{}
		for i := range d.Users {
			for j := range d.Items(i) {
				it := d.Item(i, j)
				out[[2]float64{it[0], it[1]}]++
			}
		}
		return out
	}
	if !reflect.DeepEqual(multiset(a), multiset(b)) {
		t.Fatal("re-rolling the allocation changed the items themselves")
	}
}

// variance of the users' means along the first coordinate.
func meanSpread(d *Dataset) float64 {
	var s, s2 float64
	for _, m := range d.Means() {
		s += m[0]
		s2 += m[0] * m[0]
	}
	n := float64(d.N())
	return (s2 - s*s/n) / (n - 1)
}

// Per-user means concentrate like spread²/m for i.i.d. items and do not for
// homogeneous users. With n = 400 the sample variance of the means is within
// a factor 1.5 of its expectation except with probability < 1e-6 (χ²₃₉₉ tails).
func TestUserMeansConcentrateOnlyForIIDItems(t *testing.T) {
	const m = 25
	iid := meanSpread(gen(t, Spec{Kind: Gaussian, N: 400, M: m, D: 2}, 3))
	hom := meanSpread(gen(t, Spec{Kind: Homogeneous, N: 400, M: m, D: 2}, 3))
	if iid > 1.5/m || iid < 1/(1.5*m) {
		t.Errorf("i.i.d. users: var of means %v, want ≈ 1/m = %v", iid, 1.0/m)
	}
	if hom < 1/1.5 || hom > 1.5 {
		t.Errorf("homogeneous users: var of means %v, want ≈ 1", hom)
	}
}

func TestOutliersAndClustersArePlaced(t *testing.T) {
	d := gen(t, Spec{Kind: Outliers, N: 20, M: 10, D: 2, Outliers: 3, Separation: 50}, 5)
	for i, mu := range d.Means() {
		dist := math.Hypot(mu[0], mu[1])
		// A mean of 10 N(0,1) items per coordinate is within 3 of its centre
		// except with probability < 1e-20; fixed seed.
		if outlier := i >= 17; outlier != (dist > 40) {
			t.Errorf("user %d at distance %.2f (outlier %v)", i+1, dist, outlier)
		}
	}
	c := gen(t, Spec{Kind: Clusters, N: 9, M: 10, D: 1, Clusters: 3, Separation: 20}, 6)
	for i, mu := range c.Means() {
		want := []float64{-20, 0, 20}[i%3]
		if !(math.Abs(mu[0]-want) <= 3) {
			t.Errorf("user %d mean %.2f, cluster centre %v", i+1, mu[0], want)
		}
	}
	h := gen(t, Spec{Kind: Homogeneous, N: 3, M: 5, D: 2}, 7)
	for i := range h.Users {
		for j := 1; j < 5; j++ {
			if !reflect.DeepEqual(h.Item(i, j), h.Item(i, 0)) {
				t.Fatalf("homogeneous user %d has differing items", i+1)
			}
		}
	}
}

func TestSpecValidation(t *testing.T) {
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{Kind: "uniform", N: 1, M: 1, D: 1}, "use one of"},
		{Spec{Kind: Gaussian, N: 0, M: 1, D: 1}, "≥ 1"},
		{Spec{Kind: Gaussian, N: 10000, M: 1000, D: 10}, "cap"},
		{Spec{Kind: Gaussian, N: 2, M: 1, D: 2, Center: []float64{1}}, "center has 1"},
		{Spec{Kind: Gaussian, N: 2, M: 1, D: 1, Spread: -1}, "spread"},
		{Spec{Kind: Clusters, N: 2, M: 1, D: 1, Clusters: 5}, "clusters = 5"},
		{Spec{Kind: HeavyTail, N: 2, M: 1, D: 1, DF: math.Inf(1)}, "df"},
		{Spec{Kind: Outliers, N: 2, M: 1, D: 1, Outliers: 3}, "outliers = 3"},
	} {
		if _, err := Generate(c.s, rng.New(1)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want it to mention %q", c.s, err, c.want)
		}
	}
}

// A clone shares nothing with its original, and its users' items, though
// in one array, stay apart when one of them grows.
func TestCloneIsDeep(t *testing.T) {
	d := gen(t, Spec{Kind: Gaussian, N: 4, M: 3, D: 2}, 5)
	d.Users = append(d.Users, User{ID: "empty"})
	c := d.Clone()
	if !reflect.DeepEqual(c, d) {
		t.Fatalf("clone differs from its original")
	}
	orig := d.Clone()
	c.Users[1].Points[0] = 99
	c.Users[0].Points = append(c.Users[0].Points, 7, 7)
	if !reflect.DeepEqual(d, orig) {
		t.Error("changing the clone changed the original")
	}
	if !reflect.DeepEqual(c.Users[1].Points[1:], d.Users[1].Points[1:]) || c.Users[1].Points[0] != 99 {
		t.Errorf("appending to the first user in the clone overwrote the second: %v", c.Users[1].Points)
	}
}

func TestNeighbourOperations(t *testing.T) {
	d := gen(t, Spec{Kind: Gaussian, N: 5, M: 2, D: 2}, 8)
	orig := d.Clone()
	r, err := d.Replace(2, User{Points: []float64{9, 9, 9, 9}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Users {
		changed := !reflect.DeepEqual(r.Users[i], d.Users[i])
		if changed != (i == 2) {
			t.Errorf("replace 2: user %d changed = %v", i, changed)
		}
	}
	if r.Users[2].ID != "3" || !reflect.DeepEqual(d, orig) {
		t.Error("replace renamed the user or modified the original")
	}
	del, err := d.Delete(0, 3)
	if err != nil {
		t.Fatal(err)
	}
	if del.N() != 3 || del.Users[0].ID != "2" || del.Users[2].ID != "5" || !reflect.DeepEqual(d, orig) {
		t.Errorf("delete {0,3}: ids %v", []string{del.Users[0].ID, del.Users[1].ID, del.Users[2].ID})
	}
	for _, bad := range [][]int{{5}, {-1}, {1, 1}} {
		if _, err := d.Delete(bad...); err == nil {
			t.Errorf("Delete(%v) accepted", bad)
		}
	}
	if _, err := d.Replace(0, User{Points: []float64{1, 2, 3}}); err == nil {
		t.Error("replace with a partial item accepted")
	}
	if d.Index("4") != 3 || d.Index("nobody") != -1 {
		t.Error("Index")
	}
}

func TestCSVRoundTripIsExact(t *testing.T) {
	d := gen(t, Spec{Kind: HeavyTail, N: 7, M: 3, D: 2}, 9)
	var buf bytes.Buffer
	if err := WriteCSV(&buf, d); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "user,x1,x2\n1,") {
		t.Fatalf("CSV starts %q", buf.String()[:20])
	}
	back, err := ReadCSV(&buf, false)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d, back) {
		t.Fatal("CSV round trip changed the data")
	}
}

func TestCSVInterleavedUsersAndComments(t *testing.T) {
	in := "user,x1\n# a comment\na,1\nb,2\na,3\nb,4\n"
	d, err := ReadCSV(strings.NewReader(in), false)
	if err != nil {
		t.Fatal(err)
	}
	if d.N() != 2 || d.Users[0].ID != "a" || !reflect.DeepEqual(d.Users[0].Points, []float64{1, 3}) {
		t.Fatalf("got %+v", d.Users)
	}
}

func TestCSVRejections(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty file"},
		{"user,x1\n", "no data rows"},
		{"id,x1\n1,2\n", `header column 1 is "id", expected "user"`},
		{"user,x1,y\n1,2,3\n", `expected "x2"`},
		{"user\n1\n", "no coordinate columns"},
		{"user,x1\n1,NaN\n", `line 2, column x1: "NaN" is not allowed`},
		{"user,x1\n1,2\n1,+Inf\n", "line 3, column x1"},
		{"user,x1\n1,abc\n", `line 2, column x1: "abc" is not a number`},
		{"user,x1,x2\n1,2\n", "line 2: wrong number of columns"},
		{"user,x1\n,2\n", "line 2: the user column is empty"},
		{"user,x1\n1,1\n1,2\n2,3\n", "same number of items"},
		{"user,x1\n1,\"2\n", "line 2"},
		{"user,x1\n\"#a\",1\n", "starts with '#'"},
	} {
		_, err := ReadCSV(strings.NewReader(c.in), false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadCSV(%q): error %v, want it to mention %q", c.in, err, c.want)
		}
	}
	if _, err := ReadCSV(strings.NewReader("user,x1\n1,1\n1,2\n2,3\n"), true); err != nil {
		t.Errorf("ragged users refused with allowRagged: %v", err)
	}
}

// endlessCSV yields "user,x1,x2" and then rows forever.
type endlessCSV struct{ buf []byte }

func (e *endlessCSV) Read(p []byte) (int, error) {
	if e.buf == nil {
		e.buf = []byte("user,x1,x2\n")
	}
	for len(e.buf) < len(p) {
		e.buf = append(e.buf, "u,1,2\n"...)
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

var _ io.Reader = (*endlessCSV)(nil)

func TestCSVSizeCap(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 10 million coordinates")
	}
	_, err := ReadCSV(&endlessCSV{}, false)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(MaxValues)) {
		t.Fatalf("endless CSV: %v", err)
	}
}

func TestJSONRoundTripAndRejections(t *testing.T) {
	d := gen(t, Spec{Kind: Gaussian, N: 3, M: 2, D: 2}, 10)
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var back Dataset
	if err := json.Unmarshal(b, &back); err != nil || !reflect.DeepEqual(d, &back) {
		t.Fatalf("JSON round trip: %v", err)
	}
	for _, c := range []struct{ in, want string }{
		{`{"dim":2,"users":[{"id":"1","items":[[1]]}]}`, "has 1 coordinates but dim = 2"},
		{`{"dim":1,"user":[]}`, `unknown field "user"`},
		{`{"dim":1,"users":[{"id":"1","items":[[1]],"weight":2}]}`, `unknown field "weight"`},
	} {
		var x Dataset
		if err := json.Unmarshal([]byte(c.in), &x); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		d    Dataset
		want string
	}{
		{Dataset{Dim: 0}, "dim = 0"},
		{Dataset{Dim: 1}, "no users"},
		{Dataset{Dim: 1, Users: []User{{ID: "a", Points: []float64{1}}, {ID: "a", Points: []float64{2}}}}, "used by users 1 and 2"},
		{Dataset{Dim: 1, Users: []User{{ID: "", Points: []float64{1}}}}, "empty id"},
		{Dataset{Dim: 1, Users: []User{{ID: " a", Points: []float64{1}}}}, "leading or trailing spaces"},
		{Dataset{Dim: 1, Users: []User{{ID: "a"}}}, "no items"},
		{Dataset{Dim: 2, Users: []User{{ID: "a", Points: []float64{1, 2, 3}}}}, "not a multiple"},
		{Dataset{Dim: 1, Users: []User{{ID: "a", Points: []float64{math.Inf(-1)}}}}, "item 1 x1 = -Inf"},
	} {
		if err := c.d.Validate(false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Validate(%+v): %v, want %q", c.d, err, c.want)
		}
	}
}

func TestParseNeighbour(t *testing.T) {
	d := &Dataset{Dim: 2, Users: []User{{ID: "a", Points: []float64{0, 0}}, {ID: "u3", Points: []float64{1, 1, 2, 2}}}}
	nb, i, err := ParseNeighbour(d, "replace:u3=0,1; 1,0")
	if err != nil || i != 1 {
		t.Fatal(i, err)
	}
	if got := nb.Users[1]; got.ID != "u3" || !reflect.DeepEqual(got.Points, []float64{0, 1, 1, 0}) {
		t.Errorf("replaced user %+v", got)
	}
	if !reflect.DeepEqual(d.Users[1].Points, []float64{1, 1, 2, 2}) || !reflect.DeepEqual(nb.Users[0], d.Users[0]) {
		t.Error("the original changed, or another user did")
	}
	for spec, want := range map[string]string{
		"delete:a":         "replace:ID=",
		"replace:a":        "replace:ID=",
		"replace:zz=1,2":   `no user "zz"`,
		"replace:a=1":      "has 1 coordinates, the data has d = 2",
		"replace:a=1,NaN":  "not a finite number",
		"replace:a=1,2;3,": "not a finite number",
	} {
		if _, _, err := ParseNeighbour(d, spec); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error with %q", spec, err, want)
		}
	}
}

// zeros is an endless file of '0' bytes with no newline: /dev/zero's
// cousin, one line that never ends.
type zeros struct{ read int64 }

func (z *zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '0'
	}
	z.read += int64(len(p))
	return len(p), nil
}

// Every limit stops the read early, with its name and where it stopped,
// and reads little more than the limit.
func TestCSVLimits(t *testing.T) {
	z := &zeros{}
	_, err := Limits{Line: 4096}.ReadCSV(z, false)
	var le *LimitError
	if !errors.As(err, &le) || le.Name != "line" || le.Line != 1 || z.read > 4096+64<<10 {
		t.Errorf("an endless line: %v after %d bytes", err, z.read)
	}
	wide := "user," + strings.Repeat("x,", 20) + "x\n"
	if _, err := (Limits{Columns: 20}).ReadCSV(strings.NewReader(wide), false); !errors.As(err, &le) || le.Name != "columns" {
		t.Errorf("21 columns past a limit of 20: %v", err)
	}
	rows := "user,x1\n" + strings.Repeat("1,0\n", 11)
	if _, err := (Limits{Rows: 10}).ReadCSV(strings.NewReader(rows), true); !errors.As(err, &le) || le.Name != "rows" || le.Line != 12 {
		t.Errorf("11 rows past a limit of 10: %v", err)
	}
	if _, err := (Limits{Bytes: 20}).ReadCSV(strings.NewReader(rows), true); !errors.As(err, &le) || le.Name != "bytes" {
		t.Errorf("52 bytes past a limit of 20: %v", err)
	}
	// Within every limit, the same file reads.
	if d, err := (Limits{Rows: 11, Bytes: 52, Columns: 1, Line: 7}).ReadCSV(strings.NewReader(rows), true); err != nil || d.Users[0].Points[10] != 0 {
		t.Errorf("at the limits exactly: %v", err)
	}
	// A line just past its limit, after several short ones, is reported
	// at its own line number.
	long := "user,x1\n1,0\n2," + strings.Repeat("0", 100) + "\n"
	if _, err := (Limits{Line: 50}).ReadCSV(strings.NewReader(long), true); !errors.As(err, &le) || le.Name != "line" || le.Line != 3 {
		t.Errorf("line 3 too long: %v", err)
	}
}

// A byte-order mark (as spreadsheet programs write) is skipped; ids that
// are not UTF-8 are refused rather than all printed as U+FFFD; long fields
// are quoted in part.
func TestCSVEncoding(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("\uFEFFuser,x1\nä,1\n"), false)
	if err != nil || d.Users[0].ID != "ä" {
		t.Errorf("with a BOM: %v, %+v", err, d)
	}
	if _, err := ReadCSV(strings.NewReader("user,x1\n\xe4,1\n\xf6,2\n"), true); err == nil || !strings.Contains(err.Error(), "not UTF-8") {
		t.Errorf("Latin-1 ids: %v", err)
	}
	huge := "user,x1\n1," + strings.Repeat("z", 100_000) + "\n"
	if _, err := ReadCSV(strings.NewReader(huge), false); err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), "(100000 bytes)") {
		t.Errorf("a 100 KB field: %d-byte message", len(err.Error()))
	}
}

func TestNumberedIDs(t *testing.T) {
	ids := NumberedIDs(1234)
	for i, id := range ids {
		if id != strconv.Itoa(i+1) {
			t.Fatalf("id %d is %q", i, id)
		}
	}
	if len(NumberedIDs(0)) != 0 {
		t.Error("ids for no users")
	}
	// In blocks, the same ids.
	var blocks []string
	for from := 0; from < 1234; from += 100 {
		blocks = AppendNumberedIDs(blocks, from, min(from+100, 1234))
	}
	if !slices.Equal(blocks, ids) {
		t.Error("ids made in blocks differ from ids made at once")
	}
	if got := AppendNumberedIDs([]string{"x"}, 5, 3); !slices.Equal(got, []string{"x"}) {
		t.Errorf("an empty block appended %v", got)
	}
}

// ItemMean weighs every item alike, whatever user holds it.
func TestItemMean(t *testing.T) {
	d := &Dataset{Dim: 2, Users: []User{{ID: "a", Points: []float64{0, 0, 2, 4}}, {ID: "b", Points: []float64{4, 8}}}}
	if got := d.ItemMean(); len(got) != 2 || got[0] != 2 || got[1] != 4 {
		t.Errorf("ItemMean = %v, want (2, 4)", got)
	}
	if got := (&Dataset{Dim: 3}).ItemMean(); got != nil {
		t.Errorf("no items: %v", got)
	}
	if got := (&Dataset{Users: []User{{ID: "a", Points: []float64{1}}}}).ItemMean(); got != nil {
		t.Errorf("no dimension: %v", got)
	}
}

// ItemMeanWith pauses before every block of 8,192 users and sums exactly
// as the sum over every value in order does; an error from a pause ends
// it.
func TestItemMeanWith(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d := &Dataset{Dim: 3, Users: make([]User, 20000)}
	naive := make([]float64, 3)
	items := 0
	for i := range d.Users {
		pts := make([]float64, 3*(1+r.IntN(4)))
		for j := range pts {
			pts[j] = r.NormFloat64() * 1e3
			naive[j%3] += pts[j]
		}
		items += len(pts) / 3
		d.Users[i] = User{ID: strconv.Itoa(i), Points: pts}
	}
	pauses := 0
	got, err := d.ItemMeanWith(func() error { pauses++; return nil })
	if err != nil || pauses != 3 {
		t.Fatalf("%v after %d pauses, want 3 (20,000 users in blocks of 8,192)", err, pauses)
	}
	for k := range naive {
		if want := naive[k] / float64(items); got[k] != want {
			t.Errorf("coordinate %d: %v, want %v exactly", k, got[k], want)
		}
	}
	stop := errors.New("stopped")
	if got, err := d.ItemMeanWith(func() error { pauses++; return stop }); err != stop || got != nil {
		t.Errorf("a pause's error: %v, %v", got, err)
	}
}
