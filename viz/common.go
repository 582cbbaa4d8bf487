package viz

import (
	"math"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/privacy"
)

// Names of the controls most scenes share.
const (
	CtlSeed = "seed"
	CtlMode = "mode"
)

// SeedControl declares the seed field (S re-seeds).
func SeedControl(seed uint64) Control {
	return Control{Name: CtlSeed, Label: "seed", Kind: Number, Value: strconv.FormatUint(seed, 10), Min: 0, Max: 1 << 53,
		Help: "same seed ⇒ same noise; press S for the next seed"}
}

// ParseSeed reads a seed field.
func ParseSeed(v string) (uint64, error) {
	s, err := strconv.ParseUint(v, 10, 64)
	if err != nil || s > 1<<53 {
		return 0, format.Errorf("seed %q: use a whole number from 0 to 9007199254740992", v)
	}
	return s, nil
}

// ModeControl declares the mode selector.
func ModeControl(m privacy.Mode) Control {
	return Control{Name: CtlMode, Label: "mode", Kind: Choice, Value: m.String(),
		Choices: []string{privacy.Paper.String(), privacy.Sound.String(), privacy.Teaching.String(), privacy.NonPrivate.String()},
		Help:    "which calibration runs, and so which guarantee holds",
		ChoiceHelp: map[string]string{
			privacy.Paper.String():      "the constants as the paper prints them (where its proof has gaps, the guarantee says which)",
			privacy.Sound.String():      "the same algorithm with constants the corrected proof supports",
			privacy.Teaching.String():   "κ chosen by hand to watch the mechanism; the guarantee is not the one asked for",
			privacy.NonPrivate.String(): "no noise: the algorithm's skeleton, and no guarantee",
		}}
}

// ParseNumber reads a numeric control value and checks it against the
// control's range, with a message that names the range.
func ParseNumber(c Control, v string) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, format.Errorf("%s %q is not a number", c.Label, v)
	}
	if (c.Min != 0 || c.Max != 0) && (x < c.Min || x > c.Max) {
		return 0, format.Errorf("%s = %v is outside %g … %g", c.Label, x, c.Min, c.Max)
	}
	return x, nil
}

// FormatNumber writes a control value compactly.
func FormatNumber(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// NumberAtMost is the largest number that FormatNumber writes exactly and
// that is at most x > 0: a setting a lesson derives from another (η = 1/c)
// takes it, so that a link, which carries FormatNumber's digits, restores
// the very run the page shows.
func NumberAtMost(x float64) float64 {
	y, _ := strconv.ParseFloat(FormatNumber(x), 64)
	if y > x { // rounded up: one unit of the sixth digit down
		y, _ = strconv.ParseFloat(FormatNumber(y-math.Pow(10, math.Floor(math.Log10(y))-5)), 64)
	}
	return y
}

// FormatNumbers writes a list control's value (Numbers): the numbers
// compactly, comma-separated, as a lesson may set it.
func FormatNumbers(xs []float64) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = FormatNumber(x)
	}
	return strings.Join(parts, ",")
}
