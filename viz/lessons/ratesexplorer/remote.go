package ratesexplorer

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/uldplab/uldp/core/rates"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/internal/wire"
)

var _ viz.Remote = (*Scene)(nil)

// RemoteKey names the sweep under way by everything its points depend on:
// the sizes, the axis and its values, and the runs per point (each
// point's seeds follow from its place in the sweep).
func (r *Scene) RemoteKey() string {
	if !r.Busy() {
		return ""
	}
	p := r.point()
	return wire.Key("rates sweep "+string(r.axis), append([]float64{p.N, p.M, p.D, p.Eps, p.Delta, p.K}, r.sweep...), "seeds", strconv.Itoa(r.seeds))
}

// An outcome is little-endian float64s: the share of the steps done, the
// runs done, the number of points, each point's measurementFields; then
// the sweep's error message, if any, as UTF-8.
const measurementFields = 13

// Outcome is the sweep's points so far and its progress, encoded.
func (r *Scene) Outcome() (data []byte, done bool) {
	out := make([]byte, 0, 8*(3+measurementFields*len(r.points)))
	put := func(v float64) { out = binary.LittleEndian.AppendUint64(out, math.Float64bits(v)) }
	put(r.simFrac)
	put(float64(r.simDone))
	put(float64(len(r.points)))
	for _, m := range r.points {
		for _, v := range []float64{m.Point.N, m.Point.M, m.Point.D, m.Point.Eps, m.Point.Delta, m.Point.K,
			m.MSE, m.RMS, m.Lo, m.Hi, float64(m.Seeds), float64(m.Halted), m.Sigma} {
			put(v)
		}
	}
	if r.simErr != nil {
		out = append(out, r.simErr.Error()...)
	}
	return out, !r.Busy()
}

// Adopt shows the points another copy of the explorer simulated for key;
// a finished sweep ends the one this copy would have run.
func (r *Scene) Adopt(key string, data []byte, done bool) error {
	if k := r.RemoteKey(); key != k {
		return errors.New("rates explorer: an outcome for another sweep")
	}
	get := func() (float64, bool) {
		if len(data) < 8 {
			return 0, false
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(data))
		data = data[8:]
		return v, true
	}
	frac, ok1 := get()
	runs, ok2 := get()
	n, ok3 := get()
	whole := func(v, hi float64) bool { return v >= 0 && v <= hi && v == math.Trunc(v) }
	if !ok1 || !ok2 || !ok3 || !(frac >= 0 && frac <= 1) || !whole(runs, float64(len(r.sweep)*r.seeds)) ||
		!whole(n, float64(len(r.sweep))) || len(data) < int(n)*8*measurementFields {
		return errors.New("rates explorer: an outcome that does not decode")
	}
	p := r.point()
	points := make([]rates.Measurement, int(n))
	for i := range points {
		var f [measurementFields]float64
		for j := range f {
			f[j], _ = get()
		}
		m := rates.Measurement{Point: rates.Point{N: f[0], M: f[1], D: f[2], Eps: f[3], Delta: f[4], K: f[5]},
			MSE: f[6], RMS: f[7], Lo: f[8], Hi: f[9], Seeds: int(f[10]), Halted: int(f[11]), Sigma: f[12]}
		// Each point is the sweep's next, from this sweep's runs.
		if m.Point != r.axis.With(p, r.sweep[i]) || f[10] != float64(r.seeds) || !whole(f[11], f[10]) {
			return errors.New("rates explorer: an outcome for other points")
		}
		points[i] = m
	}
	if !utf8.Valid(data) {
		return errors.New("rates explorer: an outcome whose error message does not decode")
	}
	if len(data) > 0 {
		r.simErr = errors.New(string(data))
	}
	r.points, r.simFrac, r.simDone = points, frac, int(runs)
	if done {
		if r.job != nil {
			r.job.Stop()
		}
		r.job, r.pending = nil, false
	}
	return nil
}
