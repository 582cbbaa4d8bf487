package runner

import (
	"slices"
	"strings"
)

// named returns err with the parameters it names (--tau) written as a
// scenario's fields (params.tau) when the parameters came from one, so a
// message points at the file's line, not at a flag nobody typed.
func (c *Config) named(err error) error {
	if err == nil || !c.scenario {
		return err
	}
	msg := err.Error()
	var b strings.Builder
	for {
		i := strings.Index(msg, "--")
		if i < 0 {
			break
		}
		j := i + 2
		for j < len(msg) && (msg[j] == '-' || 'a' <= msg[j] && msg[j] <= 'z' || '0' <= msg[j] && msg[j] <= '9') {
			j++
		}
		b.WriteString(msg[:i])
		b.WriteString(field(msg[i+2 : j]))
		msg = msg[j:]
	}
	if b.Len() == 0 {
		return err
	}
	b.WriteString(msg)
	return &renamed{b.String(), err}
}

// field is a scenario's name for the flag --flag, or --flag itself when
// a scenario has no such field (--trace, --max-rows).
func field(flag string) string {
	switch {
	case flag == "mech":
		return "mechanism"
	case flag == "mode":
		return "mode"
	case flag == "target-sens":
		return "params.sens"
	case slices.Contains(ParamFlags, flag):
		return "params." + strings.ReplaceAll(flag, "-", "_")
	}
	return "--" + flag
}

// renamed is an error whose message names a scenario's fields; it wraps
// the original, so a cancellation is still one.
type renamed struct {
	msg string
	err error
}

func (e *renamed) Error() string { return e.msg }
func (e *renamed) Unwrap() error { return e.err }
