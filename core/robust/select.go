package robust

// Select rearranges a so that a[k] is the value an increasing sort would put
// there, every a[i] for i < k is ≤ it and every a[i] for i > k is ≥ it, and
// returns a[k]. It runs in expected O(len(a)) time (quickselect with a
// median-of-three pivot, falling back to a sort of short ranges), where a
// sort takes O(n log n): robust SGD takes a median per coordinate per step.
// a must hold no NaN.
func Select(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for hi-lo > 16 {
		p := pivot(a, lo, hi)
		// Hoare partition around the pivot value.
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default: // j < k < i: a[k] equals the pivot
			return a[k]
		}
	}
	insertionSort(a[lo : hi+1])
	return a[k]
}

// pivot returns the median of a[lo], a[mid], a[hi].
func pivot(a []float64, lo, hi int) float64 {
	x, y, z := a[lo], a[lo+(hi-lo)/2], a[hi]
	if x > y {
		x, y = y, x
	}
	if y > z {
		y = z
	}
	if x > y {
		y = x
	}
	return y
}

func insertionSort(a []float64) {
	for i := 1; i < len(a); i++ {
		v := a[i]
		j := i
		for ; j > 0 && a[j-1] > v; j-- {
			a[j] = a[j-1]
		}
		a[j] = v
	}
}

// Median returns the median of a by selection, with the symmetric
// convention for an even count, (a₍B/2₎ + a₍B/2+1₎)/2: the one that keeps
// Median(−a) = −Median(a), which Ghazi et al.'s proof needs (a lower median
// breaks it). It reorders a.
func Median(a []float64) float64 {
	n := len(a)
	hi := Select(a, n/2)
	if n%2 == 1 {
		return hi
	}
	// Everything before n/2 is ≤ hi; the largest of it is the other middle.
	lo := a[0]
	for _, v := range a[1 : n/2] {
		lo = max(lo, v)
	}
	return (lo + hi) / 2
}

// Trimmed returns TM_k(a): the mean of a without its k smallest and k
// largest values (0 ≤ k, 2k < len(a)), by two selections. It reorders a.
func Trimmed(a []float64, k int) float64 {
	n := len(a)
	if k > 0 {
		Select(a, k)           // a[:k] are the k smallest
		Select(a[k:], n-2*k-1) // then a[k:n−k] the middle
	}
	var s float64
	for _, v := range a[k : n-k] {
		s += v
	}
	return s / float64(n-2*k)
}
