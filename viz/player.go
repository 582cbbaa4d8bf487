package viz

import (
	"strconv"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/trace"
)

// Player is the stepper bar every stepped scene shares: reset, step back,
// step, play/pause at a speed, over a trace.Stepper.
type Player struct {
	// Bound, if positive, is the most steps a run can take when it may
	// stop early: until the end the status says "of at most Bound", so
	// the run's length does not give its outcome away.
	Bound int

	st      *trace.Stepper
	playing bool
	speed   float64 // steps per second
	acc     float64
}

// Names of the stepper-bar controls.
const (
	CtlReset = "reset"
	CtlBack  = "back"
	CtlStep  = "step"
	CtlPlay  = "play"
	CtlSpeed = "speed"
	CtlEnd   = "end"
)

// IsPlayerControl reports whether name belongs to the stepper bar.
func IsPlayerControl(name string) bool {
	switch name {
	case CtlReset, CtlBack, CtlStep, CtlPlay, CtlSpeed, CtlEnd:
		return true
	}
	return false
}

// Load shows a new run, keeping the position it was given (a branch keeps
// the position of the run it replaces).
func (p *Player) Load(st *trace.Stepper) {
	p.st = st
	if st.Pos() >= st.Len() {
		p.playing = false
	}
}

// Replace shows st, a new run of the story shown (its settings changed),
// at the step the shown run was at: a run shown to its end stays at its
// end, however many steps the new one takes, as a student who pressed End
// and then changed a setting asks for the new outcome, not a step partway.
func (p *Player) Replace(st *trace.Stepper) {
	if old := p.st; old != nil {
		pos := old.Pos()
		if old.Len() > 0 && pos >= old.Len() {
			pos = st.Len()
		}
		_ = st.Seek(min(pos, st.Len()))
	}
	p.Load(st)
}

// Stepper returns the run being shown (nil before Load).
func (p *Player) Stepper() *trace.Stepper { return p.st }

// Speed returns the play speed in steps per second.
func (p *Player) Speed() float64 {
	if p.speed == 0 {
		return 2
	}
	return p.speed
}

// Playing reports whether the player advances on ticks.
func (p *Player) Playing() bool { return p.playing }

// Set performs a bar control: buttons take any value, speed a number.
func (p *Player) Set(name, value string) error {
	if p.st == nil {
		return format.Errorf("nothing to step through yet")
	}
	switch name {
	case CtlReset:
		p.playing = false
		return p.st.Seek(0)
	case CtlBack:
		p.playing = false
		p.st.Prev()
	case CtlStep:
		p.playing = false
		p.st.Next()
	case CtlEnd:
		p.playing = false
		return p.st.Seek(p.st.Len())
	case CtlPlay:
		if p.st.Pos() >= p.st.Len() && !p.playing {
			_ = p.st.Seek(0) // play from the start after the end
		}
		p.playing = !p.playing
	case CtlSpeed:
		v, err := strconv.ParseFloat(value, 64)
		if err != nil || !(v >= 0.25 && v <= 50) {
			return format.Errorf("speed %q: choose 0.25 to 50 steps per second", value)
		}
		p.speed = v
	default:
		return format.Errorf("unknown stepper control %q", name)
	}
	return nil
}

// Tick advances a playing run by dt seconds; true if the bar changed: the
// position moved, or the run reached its end and stopped playing (the
// play button comes back).
func (p *Player) Tick(dt float64) bool {
	if !p.playing || p.st == nil {
		return false
	}
	p.acc += dt * p.Speed()
	changed := false
	for p.acc >= 1 {
		p.acc--
		if _, ok := p.st.Next(); !ok {
			p.playing, p.acc = false, 0
			return true
		}
		changed = true
	}
	return changed
}

// Controls declares the bar.
func (p *Player) Controls() []Control {
	pos, n := 0, 0
	if p.st != nil {
		pos, n = p.st.Pos(), p.st.Len()
	}
	play := "▶ play"
	if p.playing {
		play = "❚❚ pause"
	}
	cs := []Control{
		{Name: CtlReset, Label: "↺ reset", Kind: Button, Key: "r", Disabled: pos == 0},
		{Name: CtlBack, Label: "◀ back", Kind: Button, Key: "ArrowLeft", Disabled: pos == 0},
		{Name: CtlStep, Label: "step ▶", Kind: Button, Key: "ArrowRight", Disabled: pos >= n},
		{Name: CtlEnd, Label: "end ▶▶", Kind: Button, Key: "End", Disabled: pos >= n},
		{Name: CtlPlay, Label: play, Kind: Button, Key: "Space"},
		{Name: CtlSpeed, Label: "speed", Kind: Slider, Value: strconv.FormatFloat(p.Speed(), 'g', -1, 64), Min: 0.25, Max: 50, Log: true, Unit: "steps/s"},
	}
	for i := range cs {
		cs[i].Group = "stepper"
	}
	return cs
}

// Status is a one-line position readout: "step 3 of 7: <text>", or
// "step 3 of at most 9: <text>" before the end of a run with a Bound.
func (p *Player) Status() string {
	if p.st == nil {
		return ""
	}
	of := format.Sprintf("of %d", p.st.Len())
	if p.Bound > 0 && p.st.Pos() < p.st.Len() {
		of = format.Sprintf("of at most %d", p.Bound)
	}
	cur, ok := p.st.Current()
	if !ok {
		return format.Sprintf("step 0 %s: press step ▶ (→) to begin", of)
	}
	return format.Sprintf("step %d %s: %s", p.st.Pos(), of, cur.Text)
}
