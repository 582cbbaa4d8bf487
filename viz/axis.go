package viz

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
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
	// The line so far, in bytes and in runes: figures wrap their texts
	// every frame, so a word costs no allocation, a line one.
	var cur []byte
	runes := 0
	// Words split at runs of spaces by hand: strings.Fields would add 4 KB
	// to every lesson module.
	for rest := strings.TrimSpace(s); rest != ""; rest = strings.TrimLeft(rest, " \t\n") {
		word := rest
		if i := strings.IndexAny(rest, " \t\n"); i >= 0 {
			word, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		wn := utf8.RuneCountInString(word)
		if runes > 0 && runes+1+wn > n {
			lines = append(lines, string(cur))
			cur, runes = cur[:0], 0
		}
		if runes > 0 {
			cur, runes = append(cur, ' '), runes+1
		}
		cur, runes = append(cur, word...), runes+wn
	}
	if runes > 0 {
		lines = append(lines, string(cur))
	}
	return lines
}
