package viz

import (
	"math"
	"strconv"
	"strings"
)

// NiceTicks returns about n round tick values (1, 2 or 5 × 10^k apart)
// covering [lo, hi].
func NiceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || n < 1 {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	base := math.Pow(10, math.Floor(math.Log10(raw)))
	step := base
	for _, m := range []float64{1, 2, 5, 10} {
		if m*base >= raw {
			step = m * base
			break
		}
	}
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// TickLabel writes a tick value without float noise.
func TickLabel(v float64) string {
	if math.Abs(v) < 1e-12 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Wrap breaks s into lines of at most n runes (at least 10) at spaces, for
// backends and scenes that lay out text without a shaper's help.
func Wrap(s string, n int) []string {
	n = max(n, 10)
	var lines []string
	var cur []rune
	// Words split at runs of spaces by hand: strings.Fields would add 4 KB
	// to every lesson module.
	for rest := strings.TrimSpace(s); rest != ""; rest = strings.TrimLeft(rest, " \t\n") {
		word := rest
		if i := strings.IndexAny(rest, " \t\n"); i >= 0 {
			word, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		wr := []rune(word)
		if len(cur) > 0 && len(cur)+1+len(wr) > n {
			lines = append(lines, string(cur))
			cur = nil
		}
		if len(cur) > 0 {
			cur = append(cur, ' ')
		}
		cur = append(cur, wr...)
	}
	if len(cur) > 0 {
		lines = append(lines, string(cur))
	}
	return lines
}
