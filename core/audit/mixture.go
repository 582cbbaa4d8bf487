package audit

import (
	"math"
	"slices"

	"github.com/uldplab/uldp/core/noise"
)

// Mixture1D is a sub-probability law on the line: an atom of mass Atom at
// AtomAt, plus Gaussian components N(Means[i], Sigma²) of mass Weights[i].
// It is the law of a projected output that is either a fixed point (a
// halt) or a kept mean plus Gaussian noise.
type Mixture1D struct {
	Atom, AtomAt float64
	Weights      []float64
	Means        []float64
	Sigma        float64
}

// density is the continuous part's density at x.
func (m Mixture1D) density(x float64) float64 {
	var f float64
	for i, w := range m.Weights {
		z := (x - m.Means[i]) / m.Sigma
		f += w * math.Exp(-z*z/2)
	}
	return f / (m.Sigma * math.Sqrt(2*math.Pi))
}

// mass is the continuous part's mass on [lo, hi].
func (m Mixture1D) mass(lo, hi float64) float64 {
	var s float64
	for i, w := range m.Weights {
		a, b := (lo-m.Means[i])/m.Sigma, (hi-m.Means[i])/m.Sigma
		if a > 0 { // both in the upper tail: difference the survivals
			s += w * (noise.Phi(-a) - noise.Phi(-b))
		} else {
			s += w * (noise.Phi(b) - noise.Phi(a))
		}
	}
	return s
}

// HockeyStick1D returns δ_{a‖b}(ε) = sup_E a(E) − e^ε·b(E) for two laws
// with the same σ. The atoms count apart (Gaussians put no mass on a
// point) unless they sit at the same point. For the continuous parts the
// sets where a's density exceeds e^ε times b's are found on a grid of
// step σ/64 over every component's ±12σ window, their ends refined by
// bisection to machine precision, and each set's mass taken from the
// normal CDF: exact but for sign changes closer than σ/64 to each other,
// which a mixture of common-σ Gaussians has only where the two densities
// nearly touch, and which then hold a negligible mass.
func HockeyStick1D(a, b Mixture1D, eps float64) float64 {
	ee := math.Exp(eps)
	var atom float64
	if a.AtomAt == b.AtomAt {
		atom = math.Max(0, a.Atom-ee*b.Atom)
	} else {
		atom = a.Atom
	}
	if !(a.Sigma > 0) { // no noise: the components are atoms too
		return atom + pointMasses(a, b, ee)
	}
	g := func(x float64) float64 { return a.density(x) - ee*b.density(x) }
	// The grid covers the union of the components' ±12σ windows.
	means := slices.Sorted(slices.Values(slices.Concat(a.Means, b.Means)))
	if len(means) == 0 {
		return atom
	}
	step, w := a.Sigma/64, 12*a.Sigma
	var grid []float64
	for i := 0; i < len(means); {
		lo, hi := means[i]-w, means[i]+w
		for i++; i < len(means) && means[i]-w <= hi; i++ {
			hi = means[i] + w
		}
		// Indexed, not accumulated: a step below the spacing of floats
		// near lo would never reach hi.
		for k := range int((hi-lo)/step) + 1 {
			grid = append(grid, lo+float64(k)*step)
		}
	}
	// The ends of the sets where g > 0, from −∞ to +∞.
	cuts := []float64{math.Inf(-1)}
	pos := []bool{g(grid[0]) > 0}
	prev := grid[0]
	for _, x := range grid[1:] {
		if (g(x) > 0) != pos[len(pos)-1] {
			lo, hi := prev, x
			for range 200 {
				mid := lo + (hi-lo)/2
				if mid == lo || mid == hi {
					break
				}
				if (g(mid) > 0) == pos[len(pos)-1] {
					lo = mid
				} else {
					hi = mid
				}
			}
			cuts = append(cuts, hi)
			pos = append(pos, !pos[len(pos)-1])
		}
		prev = x
	}
	cuts = append(cuts, math.Inf(1))
	var cont float64
	for i, p := range pos {
		if p {
			cont += a.mass(cuts[i], cuts[i+1]) - ee*b.mass(cuts[i], cuts[i+1])
		}
	}
	return atom + math.Max(0, cont)
}

// pointMasses is sup_E a(E) − ee·b(E) for laws whose components are
// atoms at their means.
func pointMasses(a, b Mixture1D, ee float64) float64 {
	mass := map[float64][2]float64{}
	for i, w := range a.Weights {
		m := mass[a.Means[i]]
		m[0] += w
		mass[a.Means[i]] = m
	}
	for i, w := range b.Weights {
		m := mass[b.Means[i]]
		m[1] += w
		mass[b.Means[i]] = m
	}
	var d float64
	for _, m := range mass {
		d += math.Max(0, m[0]-ee*m[1])
	}
	return d
}
