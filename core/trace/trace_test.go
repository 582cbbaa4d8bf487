package trace

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/noise"
	"github.com/uldplab/uldp/core/rng"
)

// noisyMean is a small stand-in mechanism: the mean of the users' first
// coordinates plus Laplace noise from the "laplace" stream, and a coin from
// "keep" that is only flipped when the mean is positive — so an edit can
// change how much one stream is used.
type meanStep struct {
	Mean  float64 `json:"mean"`
	Noise float64 `json:"noise"`
}

func noisyMean(ctx cancel.Context, d *dataset.Dataset, s *rng.Streams) (*Trace, error) {
	rec := NewRecorder("noisy-mean", s.Seed())
	var sum float64
	for i := range d.Users {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		u := d.UserMean(i, nil)[0]
		sum += u
		rec.Addf("data.user", u, "user %s has mean %.3f", d.Users[i].ID, u)
	}
	mean := sum / float64(d.N())
	if mean > 0 {
		rec.Addf("coin.flip", s.Get(rng.Keep).Uint64()%2, "mean is positive: flip a coin")
	}
	z := noise.Laplace{Scale: 1, Src: s.Get(rng.Laplace)}.Rand()
	rec.Addf("noise.add", meanStep{mean, z}, "release %.3f + %.3f", mean, z)
	return rec.Trace(), nil
}

func data(t *testing.T, seed uint64) *dataset.Dataset {
	d, err := dataset.Generate(dataset.Spec{Kind: dataset.Gaussian, N: 5, M: 3, D: 1}, rng.New(seed))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSameSeedByteIdenticalTrace(t *testing.T) {
	enc := func() string {
		tr, err := noisyMean(context.Background(), data(t, 1), rng.New(7))
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Encode(&buf, tr); err != nil {
			t.Fatal(err)
		}
		return buf.String()
	}
	a, b := enc(), enc()
	if a != b {
		t.Fatal("same seed gave different trace JSON")
	}
	if !strings.HasPrefix(a, `{"schema":1,"mechanism":"noisy-mean","seed":7,"steps":[`) {
		t.Fatalf("trace JSON starts %q", a[:60])
	}
	back, err := Decode(strings.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	orig, _ := noisyMean(context.Background(), data(t, 1), rng.New(7))
	if Diverge(orig, back) != -1 {
		t.Fatal("decoded trace differs from the recorded one")
	}
}

func TestDecodeRejects(t *testing.T) {
	for _, in := range []string{`{"schema":2,"steps":[]}`, `{"schema":1,"steps":[],"extra":1}`, `[`} {
		if _, err := Decode(strings.NewReader(in)); err == nil {
			t.Errorf("Decode(%s) accepted", in)
		}
	}
}

func TestNilRecorderIsFree(t *testing.T) {
	var r *Recorder
	r.Add("x", "y", nil)
	r.Addf("x", nil, "%d", 1)
	if r.Trace() != nil {
		t.Fatal("nil recorder produced a trace")
	}
}

func TestStepperSeekAndStepBack(t *testing.T) {
	ctx := context.Background()
	s, err := NewStepper(ctx, noisyMean, data(t, 1), rng.New(3))
	if err != nil {
		t.Fatal(err)
	}
	if s.Pos() != 0 || s.Len() < 6 {
		t.Fatalf("pos %d len %d", s.Pos(), s.Len())
	}
	if _, ok := s.Current(); ok || s.Prev() {
		t.Fatal("before the first step there is nothing to show or undo")
	}
	var seen []Step
	for {
		st, ok := s.Next()
		if !ok {
			break
		}
		seen = append(seen, st)
	}
	if len(seen) != s.Len() || s.Pos() != s.Len() {
		t.Fatal("Next did not walk the whole run")
	}
	// Step back restores exactly the earlier view.
	if err := s.Seek(3); err != nil {
		t.Fatal(err)
	}
	before := append([]Step(nil), s.Shown()...)
	s.Next()
	s.Prev()
	if len(s.Shown()) != 3 || Diverge(&Trace{Steps: before}, &Trace{Steps: s.Shown()}) != -1 {
		t.Fatal("step forward then back did not restore the view")
	}
	if cur, _ := s.Current(); cur.Kind != seen[2].Kind {
		t.Fatalf("Current = %v", cur)
	}
	for _, bad := range []int{-1, s.Len() + 1} {
		if err := s.Seek(bad); err == nil {
			t.Errorf("Seek(%d) accepted", bad)
		}
	}
}

func TestBranchUsesCommonRandomNumbers(t *testing.T) {
	ctx := context.Background()
	d := data(t, 1)
	// Force the first run's mean negative and the edited one's positive, so
	// the edit makes the run draw from an extra stream ("keep").
	for i := range d.Users {
		for k := range d.Users[i].Points {
			d.Users[i].Points[k] = -1
		}
	}
	s, err := NewStepper(ctx, noisyMean, d, rng.New(11))
	if err != nil {
		t.Fatal(err)
	}
	s.Seek(2)
	edited, _ := d.Replace(0, dataset.User{Points: []float64{50, 50, 50}})
	b, err := s.Branch(ctx, edited)
	if err != nil {
		t.Fatal(err)
	}
	if b.Pos() != 2 {
		t.Errorf("branch position %d, want 2", b.Pos())
	}
	last := func(st *Stepper) meanStep { return st.Trace().Steps[st.Len()-1].Data.(meanStep) }
	// The Laplace draw is the same although the edited run flipped a coin first.
	if last(s).Noise != last(b).Noise {
		t.Errorf("noise changed under the same seed: %v vs %v", last(s).Noise, last(b).Noise)
	}
	if got, want := last(b).Mean-last(s).Mean, (50.0+1)/5; !(math.Abs(got-want) <= 1e-12) {
		t.Errorf("mean moved by %v, want %v", got, want)
	}
	if i := Diverge(s.Trace(), b.Trace()); i != 0 {
		t.Errorf("traces diverge at %d, want 0 (user 1 changed)", i)
	}
	// The original stepper is untouched.
	if s.Data().Users[0].Points[0] != -1 {
		t.Error("branch modified the original data")
	}

	r, err := s.Reroll(ctx, rng.Laplace)
	if err != nil {
		t.Fatal(err)
	}
	if last(r).Noise == last(s).Noise || last(r).Mean != last(s).Mean {
		t.Error("re-rolling the Laplace stream should change the noise only")
	}
}

func TestBranchRefusesCrypto(t *testing.T) {
	s, err := NewStepper(context.Background(), noisyMean, data(t, 1), rng.NewExternal("a fixed PCG", rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Branch(context.Background(), data(t, 2)); err == nil || !strings.Contains(err.Error(), "not replayable") {
		t.Fatalf("branch of a crypto run: %v", err)
	}
}

func TestCancelledRun(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := NewStepper(ctx, noisyMean, data(t, 1), rng.New(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
}

// NewStepper runs on and keeps a copy (a caller's later edit changes
// neither the run nor a reroll); NewStepperShared runs on the caller's data.
func TestStepperCopiesUnlessShared(t *testing.T) {
	ctx := context.Background()
	d := data(t, 1)
	var ran *dataset.Dataset
	run := func(ctx cancel.Context, data *dataset.Dataset, s *rng.Streams) (*Trace, error) {
		ran = data
		return noisyMean(ctx, data, s)
	}
	s, err := NewStepper(ctx, run, d, rng.New(3))
	if err != nil {
		t.Fatal(err)
	}
	if ran == d {
		t.Fatal("NewStepper ran on the caller's data")
	}
	d.Users[0].Points[0] += 100
	r, err := s.Reroll(ctx, rng.Keep)
	if err != nil {
		t.Fatal(err)
	}
	if Diverge(s.Trace(), r.Trace()) != -1 {
		t.Error("a caller's edit after NewStepper reached the reroll")
	}
	if _, err := NewStepperShared(ctx, run, d, rng.New(3)); err != nil || ran != d {
		t.Errorf("NewStepperShared ran on a copy (err %v)", err)
	}
}

// Has and Last read the steps shown so far: a kind among several, the
// newest step's data of a kind, nothing for a kind not yet shown.
func TestHasAndLast(t *testing.T) {
	type gate struct{ Pass bool }
	steps := []Step{{Kind: "a.score"}, {Kind: "at.compare", Data: gate{true}}, {Kind: "x.other"}, {Kind: "at.compare", Data: gate{false}}}
	if !Has(steps, "b.none", "a.score") || Has(steps, "b.none") || Has(nil, "a.score") {
		t.Error("Has reads the kinds wrong")
	}
	if g := Last[gate](steps, "at.compare"); g == nil || g.Pass {
		t.Errorf("Last = %+v, want the newest compare (failed)", g)
	}
	if g := Last[gate](steps[:2], "at.compare"); g == nil || !g.Pass {
		t.Errorf("Last of the first two = %+v", g)
	}
	if Last[gate](steps, "x.other") != nil || Last[gate](steps[:1], "at.compare") != nil {
		t.Error("Last found data where there is none")
	}
}
