package optim

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

// Spec §A-5 oracles: batches (⌊n/2^i⌋, ⌊n/2^{i−1}⌋] are disjoint with sizes
// ⌊n/2^{i−1}⌋ − ⌊n/2^i⌋; every phase spends the full (ε, δ) and the ledger's
// parallel total is (ε, δ).
func TestPhasedSCOBatchesAndBudget(t *testing.T) {
	d := data(t, 2000, 10, 0.001, 0.2, 0.1)
	p := base
	res, tr, err := PhasedSCO(context.Background(), p, d, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	// ε = 1, δ = 1e-5 ⇒ κ = 27, N₀ = 216, T = ⌈log₂(2000/216)⌉ = 4.
	if len(res.Phases) != 4 {
		t.Fatalf("T = %d, want 4", len(res.Phases))
	}
	want := []int{1000, 500, 250, 125}
	for i, ph := range res.Phases {
		if ph.Users != want[i] {
			t.Errorf("phase %d runs on %d users, want %d", i+1, ph.Users, want[i])
		}
	}
	for i, s := range res.Ledger.Spends() {
		// The group names the batch's users, 1-based: (⌊n/2^i⌋, ⌊n/2^{i−1}⌋].
		group := "users " + strconv.Itoa(2000>>(i+1)+1) + "–" + strconv.Itoa(2000>>i)
		if s.Eps != 1 || s.Delta != 1e-5 || s.Group != group {
			t.Errorf("spend %+v: each phase spends the full (ε, δ) on its own group, %q", s, group)
		}
	}
	for _, st := range tr.Steps {
		if st.Kind == KindLedgerSpend && !strings.HasSuffix(st.Text, "(disjoint: parallel composition)") {
			t.Errorf("spend step %q: the batches are disjoint, and the trace should say so", st.Text)
		}
	}
	total, _ := res.Ledger.Total()
	if total.Eps != 1 || total.Delta != 1e-5 {
		t.Errorf("parallel total %+v, want (1, 1e-5)", total)
	}
	if !res.Guarantee.Certified() || tr.Mechanism != "phased-sco" {
		t.Errorf("guarantee %v, trace %q", res.Guarantee, tr.Mechanism)
	}
	// The batches' user ids are disjoint and cover the first n − ⌊n/2^T⌋… users.
	seen := map[string]bool{}
	for i := 1; i <= 4; i++ {
		lo, hi := 2000>>i, 2000>>(i-1)
		for u := lo; u < hi; u++ {
			id := d.Users[u].ID
			if seen[id] {
				t.Fatalf("user %s in two batches", id)
			}
			seen[id] = true
		}
	}
}

func TestPhasedSCONonPrivateAndOddSizes(t *testing.T) {
	d := data(t, 101, 4, 0.2, 0.3, 0)
	p := base
	p.Mode, p.Phases, p.Lambda = privacy.NonPrivate, 3, 1e-6
	res, _, err := PhasedSCO(context.Background(), p, d, rng.New(1), nil)
	if err != nil {
		t.Fatal(err)
	}
	// ⌊101/2⌋ = 50, ⌊101/4⌋ = 25, ⌊101/8⌋ = 12: sizes 51, 25, 13.
	for i, want := range []int{51, 25, 13} {
		if res.Phases[i].Users != want {
			t.Errorf("phase %d: %d users, want %d", i+1, res.Phases[i].Users, want)
		}
	}
	// Without noise and with a tiny λ the last iterate is the last batch's
	// minimiser: its users' mean, inside 𝒦.
	last := res.Phases[2]
	if math.Hypot(res.Theta[0]-last.Minimiser[0], res.Theta[1]-last.Minimiser[1]) > 1e-12 {
		t.Errorf("θ̂ = %v, last minimiser %v", res.Theta, last.Minimiser)
	}
	p.Phases = 8 // 101 >> 8 = 0: an empty batch
	if _, _, err := PhasedSCO(context.Background(), p, d, rng.New(1), nil); err == nil {
		t.Error("an empty last batch was accepted")
	}
	// 64 >> 6 = 1: the last batch holds one user, the fewest that runs.
	p.Phases = 6
	if _, _, err := PhasedSCO(context.Background(), p, data(t, 64, 4, 0.2, 0.3, 0), rng.New(1), nil); err != nil {
		t.Errorf("6 phases on 64 users (a last batch of 1): %v", err)
	}
}
