package dataset

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"runtime"
	"testing"

	"github.com/uldplab/uldp/core/cancel"
	"github.com/uldplab/uldp/core/rng"
)

// fingerprint hashes a dataset's ids and every coordinate's bits, in order.
func fingerprint(d *Dataset) string {
	h := sha256.New()
	var b [8]byte
	for _, u := range d.Users {
		h.Write([]byte(u.ID))
		for _, v := range u.Points {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
			h.Write(b[:])
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// The generated data are pinned to the bit: lessons, exercises and their
// keys are built on them. These fingerprints were taken from the
// generator as it was before it drew a block at a time (items into a pool,
// then dealt); drawing each item straight into its slot must not move one.
func TestGenerateIsPinned(t *testing.T) {
	for _, c := range []struct {
		kind    string
		n, m, d int
		want    string
	}{
		{"gaussian", 37, 5, 3, "5de09ad77e7a29bf"},
		{"gaussian", 300, 17, 2, "7c06710928ec2dbc"},
		{"gaussian", 2, 1, 1, "e89fec9308f036e6"},
		{"clusters", 37, 5, 3, "a8b79c89da917c65"},
		{"clusters", 300, 17, 2, "d04f8c898727e2c1"},
		{"clusters", 2, 1, 1, "5116f6de07bfe89e"},
		{"heavy-tail", 37, 5, 3, "de6d8e5795988cd2"},
		{"heavy-tail", 300, 17, 2, "39bb80d1e71aa385"},
		{"heavy-tail", 2, 1, 1, "df4f1f091636029f"},
		{"outliers", 37, 5, 3, "f9abb57e0381a02c"},
		{"outliers", 300, 17, 2, "aae0a12fb809a131"},
		{"outliers", 2, 1, 1, "b801534d5fb924bc"},
		{"homogeneous", 37, 5, 3, "4b43c3cf8ad68822"},
		{"homogeneous", 300, 17, 2, "bcff7dc6c59d5881"},
		{"homogeneous", 2, 1, 1, "e89fec9308f036e6"},
	} {
		s := Spec{Kind: c.kind, N: c.n, M: c.m, D: c.d}
		if c.d == 2 {
			s.Spread, s.Center = 0.5, []float64{1, -2}
		}
		if got := fingerprint(gen(t, s, 7)); got != c.want {
			t.Errorf("%s %d×%d×%d: fingerprint %s, want %s", c.kind, c.n, c.m, c.d, got, c.want)
		}
	}
}

// dealing's slots are the inverse of the stream's own Perm.
func TestDealingInvertsPerm(t *testing.T) {
	for _, n := range []int{1, 2, 3, 100, 4097} {
		want := rng.New(3).Get(rng.Perm).Perm(n)
		at, err := dealing(rng.New(3).Get(rng.Perm), n, func(int) error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		for slot, item := range want {
			if at[item] != slot {
				t.Fatalf("n = %d: item %d dealt to slot %d, Perm puts it in %d", n, item, at[item], slot)
			}
		}
	}
}

// GenerateWith pauses often enough for a caller computing between frames:
// at the rates explorer's largest sweep (1,600 users of 64 items in 16
// dimensions, 13 MB of items) no piece allocated between two pauses comes
// near the items' size, and a stopped context ends it at the next pause.
func TestGenerateWithPauses(t *testing.T) {
	s := Spec{Kind: Gaussian, N: 1600, M: 64, D: 16}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	last, most, pauses := ms.TotalAlloc, uint64(0), 0
	d, err := GenerateWith(cancel.Never, s, rng.New(1), func() {
		pauses++
		runtime.ReadMemStats(&ms)
		most, last = max(most, ms.TotalAlloc-last), ms.TotalAlloc
	})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&ms)
	most = max(most, ms.TotalAlloc-last)
	// The largest pieces made at once are the users' table and the
	// dealing's two slices of n·m slots (0.8 MB each); the items, 13 MB,
	// are one user at a time.
	const limit = 2 << 20
	t.Logf("%d pauses, most allocated between two: %.2f MB", pauses, float64(most)/1e6)
	if most > limit {
		t.Errorf("allocated %.1f MB between two pauses, over %d MiB", float64(most)/1e6, limit>>20)
	}
	// The items alone are n·m·d coordinates written twice (allocated, then
	// drawn), a pause every pauseEvery.
	if min := 2 * s.N * s.M * s.D / pauseEvery; pauses < min {
		t.Errorf("%d pauses, want at least %d", pauses, min)
	}
	if want, err := Generate(s, rng.New(1)); err != nil || fingerprint(want) != fingerprint(d) {
		t.Errorf("GenerateWith's data differ from Generate's (%v)", err)
	}

	// A context stopped at any pause ends the work there: in the users'
	// allocation, the dealing's three passes, the draws, the outliers'.
	for _, kind := range Kinds {
		s := Spec{Kind: kind, N: 400, M: 50, D: 4}
		pauses := 0
		if _, err := GenerateWith(cancel.Never, s, rng.New(1), func() { pauses++ }); err != nil {
			t.Fatal(err)
		}
		for k := 1; k <= pauses; k++ {
			stop := errors.New("stopped")
			ctx := &stopAfter{left: k, err: stop}
			if _, err := GenerateWith(ctx, s, rng.New(1), ctx.pause); !errors.Is(err, stop) || ctx.left != 0 {
				t.Errorf("%s: a context stopped at pause %d of %d gave %v after %d more pauses", kind, k, pauses, err, -ctx.left)
			}
		}
	}
}

// stopAfter is a context that reports err after left pauses.
type stopAfter struct {
	left int
	err  error
}

func (c *stopAfter) pause() { c.left-- }

func (c *stopAfter) Err() error {
	if c.left <= 0 {
		return c.err
	}
	return nil
}
