package robust

import (
	"math/rand/v2"
	"testing"
)

// One step of Ghazi et al.'s robust SGD at the size: B = 3,000 users'
// gradients in 2-D.
const benchB, benchD = 3000, 2

func benchBatch() []float64 {
	return randomPoints(rand.New(rand.NewPCG(1, 1)), benchB, benchD, 1)
}

// BenchmarkRGE is the estimate with the median by selection.
func BenchmarkRGE(b *testing.B) {
	flat, scratch := benchBatch(), make([]float64, benchB)
	var e Estimate
	for b.Loop() {
		RGE(flat, benchD, 0.5, Stat{}, &e, scratch)
	}
}

// BenchmarkRGESorted is the same estimate with a sort-based median, the
// baseline selection must beat in the same run.
func BenchmarkRGESorted(b *testing.B) {
	flat := benchBatch()
	pts := make([][]float64, benchB)
	for i := range pts {
		pts[i] = flat[i*benchD : (i+1)*benchD]
	}
	scratch, med := make([]float64, benchB), make([]float64, benchD)
	mean := make([]float64, benchD)
	for b.Loop() {
		CoordMedian(pts, med, scratch)
		clear(mean)
		for _, p := range pts {
			for k, v := range p {
				mean[k] += v / benchB
			}
		}
		for k := range mean {
			mean[k] = Clip(mean[k], med[k]-0.5, med[k]+0.5)
		}
	}
}

// BenchmarkKernelScore is the test's score of the same batch by the
// rotated sweep, O(B log B).
func BenchmarkKernelScore(b *testing.B) {
	flat := benchBatch()
	for b.Loop() {
		KernelScore(flat, benchD, 1, ExpKernel, nil)
	}
}

// BenchmarkKernelScorePairs is the same score by its B²/2 pairs (asking
// for the row sums takes that path): the baseline.
func BenchmarkKernelScorePairs(b *testing.B) {
	flat, rows := benchBatch(), make([]float64, benchB)
	for b.Loop() {
		KernelScore(flat, benchD, 1, ExpKernel, rows)
	}
}
