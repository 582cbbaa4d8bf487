package privacy

import (
	"strings"

	"github.com/uldplab/uldp/core/format"
)

// Mode says which calibration a run uses and so which guarantee it may claim.
type Mode int

// The four modes of the design (§2.2).
const (
	// Paper uses the formulas as printed, with the spec's typo resolutions.
	Paper Mode = iota
	// Sound uses corrected calibrations where the paper's are insufficient.
	Sound
	// Teaching uses hand-picked constants; the guarantee is computed for them
	// or marked not certified.
	Teaching
	// NonPrivate adds no noise: the optimisation skeleton, no guarantee.
	NonPrivate
)

var modeNames = [...]string{"paper", "sound", "teaching", "non-private"}

// String returns the mode's name as written in scenarios and flags.
func (m Mode) String() string {
	if m < 0 || int(m) >= len(modeNames) {
		return format.Sprintf("Mode(%d)", int(m))
	}
	return modeNames[m]
}

// ParseMode reads a mode name.
func ParseMode(s string) (Mode, error) {
	for i, n := range modeNames {
		if s == n {
			return Mode(i), nil
		}
	}
	return 0, format.Errorf("mode %q: use one of %s", s, strings.Join(modeNames[:], ", "))
}

// MarshalText writes the mode's name.
func (m Mode) MarshalText() ([]byte, error) {
	if m < 0 || int(m) >= len(modeNames) {
		return nil, format.Errorf("unknown mode %d", int(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText reads a mode's name.
func (m *Mode) UnmarshalText(b []byte) error {
	v, err := ParseMode(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}
