package audit

import (
	"context"
	"testing"

	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/core/rng"
)

var sinkPoints []Point

// One exact δ(ε) curve of 81 points, both orders, on two known laws: what a
// lesson redraws when the user moves the ε range.
func BenchmarkExactCurve(b *testing.B) {
	x := append(append([]float64(nil), inliers...), 10)
	la, _ := mech.DelOutputPertLaw(context.Background(), p1, oneD(x...), nil)
	lb, _ := mech.DelOutputPertLaw(context.Background(), p1, oneD(with(x, 13, 0)...), nil)
	eps := make([]float64, 81)
	for i := range eps {
		eps[i] = 16 * float64(i) / 80
	}
	g := privacy.Guarantee{Eps: 8, Delta: 0.1}
	for b.Loop() {
		sinkPoints = Curve(la, lb, g, eps)
	}
}

// The same curve including both exact laws (two r* searches at n = 14): what
// the neighbour lens recomputes on every drag.
func BenchmarkExactAuditWithLaws(b *testing.B) {
	x := append(append([]float64(nil), inliers...), 10)
	y := with(x, 13, 0)
	eps := make([]float64, 81)
	for i := range eps {
		eps[i] = 16 * float64(i) / 80
	}
	g := privacy.Guarantee{Eps: 8, Delta: 0.1}
	for b.Loop() {
		la, _ := mech.DelOutputPertLaw(context.Background(), p1, oneD(x...), nil)
		lb, _ := mech.DelOutputPertLaw(context.Background(), p1, oneD(y...), nil)
		sinkPoints = Curve(la, lb, g, eps)
	}
}

// One DP-SGD run on the audit lab's two-crowds pair (600 users, 8 steps,
// the no-gate variant so every run goes the distance): the audit's sampler
// against the real run it stands in for.
func BenchmarkDPSGDAuditRun(b *testing.B) {
	data := oneD(append(crowd(299, 0), crowd(301, 100)...)...)
	b.Run("sampler", func(b *testing.B) {
		runs, err := SampleDPSGD(dpsgdLab, data, ORMENoGate)
		if err != nil {
			b.Fatal(err)
		}
		st := rng.New(1)
		for b.Loop() {
			if _, err := runs.Sample(st); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("real", func(b *testing.B) {
		p := dpsgdLab
		p.Mode = privacy.NonPrivate // the real code has no gate-less variant; this one never halts either
		var seed uint64
		for b.Loop() {
			seed++
			if _, _, err := optim.DPSGD(context.Background(), p, data, rng.New(seed), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}
