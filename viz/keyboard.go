package viz

import (
	"slices"
	"strings"

	"github.com/uldplab/uldp/core/format"
)

// Describer is a scene that says in words what its figure shows now: its
// objects and their key numbers, and what the current step did. A screen
// reader reads it as the figure's description, the desktop shows it on a
// key. The stepper's status is not repeated: App.Describe puts it first;
// nor is it asked while the run failed (App.Describe says the failure).
type Describer interface {
	Describe() string
}

// ItemNamer is a scene that names what the figure's hit-testable items
// show ("user 14's mean"), for the keyboard's selection; without it an
// item is "item 3 of 40".
type ItemNamer interface {
	ItemName(id int) string
}

// Keyboard moves, in figure pixels: an arrow's step, and Shift+arrow's.
const (
	KeyStep      = 4.0
	KeyStepLarge = 24.0
)

// Describe is the figure in words: the stepper's position, the scene's own
// description (or, when its run failed, the failure its readouts show),
// the guarantee's claim and the keyboard's selection.
func (a *App) Describe() string {
	var parts []string
	if st, ok := a.Scene().(Stepped); ok {
		if s := st.Player().Status(); s != "" {
			parts = append(parts, s)
		}
	}
	failed := false
	for _, r := range a.Scene().Readouts() {
		if r.Name == FailedReadout { // the figure shows the failure, not a run
			parts, failed = append(parts, r.Label+": "+r.Text), true
		}
	}
	if d, ok := a.Scene().(Describer); ok && !failed {
		parts = append(parts, d.Describe())
	} else if !failed {
		parts = append(parts, a.Scene().Info().Summary)
	}
	parts = append(parts, "Guarantee: "+a.Guarantee().String())
	if s := a.Selection(); s != "" {
		parts = append(parts, s)
	}
	return sentences(parts)
}

// sentences joins parts into one text, each ending in a full stop.
func sentences(parts []string) string {
	var b strings.Builder
	for _, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(p)
		if !strings.HasSuffix(p, ".") && !strings.HasSuffix(p, "!") && !strings.HasSuffix(p, "?") {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// ItemAction is what a press on one of a figure's items does.
type ItemAction uint8

// The actions.
const (
	// Drags: a press picks the item up and the pointer moves it (the
	// default).
	Drags ItemAction = iota
	// Clicks: a press acts at once (a cell that takes another value).
	Clicks
	// Shows: nothing; the item is hit-tested only to be found (a
	// simulated point), and the keyboard does not offer it.
	Shows
)

// ItemActions is a scene some of whose items are not dragged.
type ItemActions interface {
	ItemAction(id int) ItemAction
}

// Label is the figure's accessible name: the lesson and the keys that
// work on it now.
func (a *App) Label() string {
	keys := []string{}
	if _, ok := a.Scene().(Stepped); ok {
		keys = append(keys, "← → step, Space plays")
	}
	if k := a.FigureKeys(); k != "" {
		keys = append(keys, k)
	}
	label := "Figure of " + a.Scene().Info().Title
	if len(keys) > 0 {
		label += ": " + strings.Join(keys, "; ")
	}
	return label
}

// FigureKeys says what the figure's own keys do, for the key lists and the
// figure's name; "" when it has no item to offer.
func (a *App) FigureKeys() string {
	if !a.anyChoosable() {
		return ""
	}
	return "↑ ↓ choose an item, Enter picks it up (or presses it), arrows move it (Shift: larger steps), Enter drops it, Escape puts it back"
}

// Selection says which item the keyboard has chosen, and whether it holds
// it; "" when none is chosen.
func (a *App) Selection() string {
	if a.sel == 0 {
		return ""
	}
	name := a.itemName(a.sel)
	switch {
	case a.held:
		return "Holding " + name + ": arrows move it (Shift for larger steps), Enter drops it, Escape puts it back"
	case a.action(a.sel) == Clicks:
		return "Chosen: " + name + " (Enter presses it)"
	}
	return "Chosen: " + name + " (Enter picks it up)"
}

// Chosen is the ID of the item the keyboard has chosen, 0 for none.
func (a *App) Chosen() int { return a.sel }

func (a *App) itemName(id int) string {
	if n, ok := a.Scene().(ItemNamer); ok {
		if s := n.ItemName(id); s != "" {
			return s
		}
	}
	ids := a.choosable()
	i, found := slices.BinarySearch(ids, id)
	if !found {
		return "an item no longer in the figure"
	}
	return format.Sprintf("item %d of %d", i+1, len(ids))
}

// action is what a press on item id does.
func (a *App) action(id int) ItemAction {
	if s, ok := a.Scene().(ItemActions); ok {
		return s.ItemAction(id)
	}
	return Drags
}

// choosable lists the IDs the keyboard offers, ascending.
func (a *App) choosable() []int {
	ids := a.list.IDs()
	if s, ok := a.Scene().(ItemActions); ok {
		ids = slices.DeleteFunc(ids, func(id int) bool { return s.ItemAction(id) == Shows })
	}
	return ids
}

// anyChoosable reports whether the keyboard has an item to offer, without
// listing them all (a cloud of 10⁵ dots would cost milliseconds on every
// settled input).
func (a *App) anyChoosable() bool {
	s, acts := a.Scene().(ItemActions)
	if a.list == nil {
		return false
	}
	for i := range a.list.Items {
		it := &a.list.Items[i]
		if !it.choosable() {
			continue
		}
		if !acts {
			return true
		}
		n := 1
		if it.Kind == Dots {
			n = len(it.P)
		}
		for k := range n {
			if s.ItemAction(it.ID+k) != Shows {
				return true
			}
		}
	}
	return false
}

// figureKey handles the keys that work on the figure's items: ↑ ↓ choose
// one, Enter picks it up (or presses it) and drops it, Escape puts a held
// one back where it was picked up, arrows (Shift: larger steps) move a
// held one. The moves are the pointer events a mouse would send, through
// the scene's own drag code, the press naming its item (Event.Target).
// handled is false for keys left to the shortcuts (← → step while
// nothing is held).
func (a *App) figureKey(k string) (handled, changed bool) {
	shift := strings.HasPrefix(k, "Shift+")
	k = strings.TrimPrefix(k, "Shift+")
	step := KeyStep
	if shift {
		step = KeyStepLarge
	}
	if a.held {
		d := map[string]Point{"ArrowLeft": {-step, 0}, "ArrowRight": {step, 0}, "ArrowUp": {0, -step}, "ArrowDown": {0, step}}
		switch v, ok := d[k]; {
		case ok:
			a.at.X += v.X
			a.at.Y += v.Y
			a.Event(Event{Kind: PointerMove, X: a.at.X, Y: a.at.Y})
			return true, true
		case k == "Escape":
			a.at = a.from
			a.Event(Event{Kind: PointerMove, X: a.at.X, Y: a.at.Y})
			fallthrough
		case k == "Enter":
			return true, a.Release()
		}
		return false, false
	}
	switch k {
	case "ArrowUp", "ArrowDown":
		ids := a.choosable()
		if len(ids) == 0 {
			return false, false // the page's: scrolling
		}
		i, found := slices.BinarySearch(ids, a.sel)
		switch {
		case k == "ArrowDown" && found:
			i = (i + 1) % len(ids)
		case k == "ArrowDown":
			i %= len(ids)
		default: // up: the one before, wrapping
			i = (i - 1 + len(ids)) % len(ids)
		}
		a.sel, a.dirty = ids[i], true
		return true, true
	case "Enter":
		p, ok := a.list.Locate(a.sel)
		if a.sel == 0 || !ok {
			return false, false
		}
		down := Event{Kind: PointerDown, X: p.X, Y: p.Y, Target: a.sel}
		if a.action(a.sel) == Clicks {
			a.Event(down)
			a.Event(Event{Kind: PointerUp, X: p.X, Y: p.Y})
			a.dirty = true
			return true, true
		}
		if !a.Event(down) {
			return true, false // the scene took no drag
		}
		a.held, a.at, a.from, a.dirty = true, p, p, true
		return true, true
	case "Escape":
		if a.sel == 0 {
			return false, false
		}
		a.sel, a.dirty = 0, true
		return true, true
	}
	return false, false
}

// Release lets go of an item the keyboard holds where it is (the figure
// lost the focus, or a setting is about to change the run under it); true
// if one was held.
func (a *App) Release() bool {
	if !a.held {
		return false
	}
	a.held, a.dirty = false, true
	a.Event(Event{Kind: PointerUp, X: a.at.X, Y: a.at.Y})
	return true
}

// dropSelection forgets the keyboard's choice (another lesson is shown),
// letting go of a held item first.
func (a *App) dropSelection() {
	a.Release()
	a.sel = 0
}

// markSelection draws the keyboard's choice over the figure: a dashed
// ring while chosen, a solid one while held.
func (a *App) markSelection(l *List) {
	if a.sel == 0 || l == nil {
		return
	}
	ring, ok := l.outline(a.sel)
	if !ok {
		if !a.held {
			a.sel = 0 // gone from the figure (a run with fewer users)
		}
		return
	}
	ring.Style = Style{Stroke: Ink, Width: 2, Dashed: !a.held}
	l.Items = append(l.Items, ring)
}

// IDs lists the distinct IDs of the hit-testable items, ascending: what
// the keyboard can choose.
func (l *List) IDs() []int {
	if l == nil {
		return nil
	}
	var ids []int
	for i := range l.Items {
		it := &l.Items[i]
		switch {
		case !it.choosable():
		case it.Kind == Dots:
			for k := range it.P {
				ids = append(ids, it.ID+k)
			}
		default:
			ids = append(ids, it.ID)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// choosable reports whether the keyboard can choose the item: one that
// answers hit-tests (List.Hit).
func (it *Item) choosable() bool {
	return it.ID != 0 && (it.Kind == Dots || it.Kind == Circle || it.Kind == Rect)
}

// outline is a shape around the topmost item with the given ID.
func (l *List) outline(id int) (Item, bool) {
	for i := len(l.Items) - 1; i >= 0; i-- {
		it := &l.Items[i]
		switch {
		case it.Kind == Dots && it.ID != 0 && id >= it.ID && id < it.ID+len(it.P):
			return Item{Kind: Circle, P: []Point{it.P[id-it.ID]}, R: it.R + 4}, true
		case it.ID != id:
		case it.Kind == Circle:
			return Item{Kind: Circle, P: []Point{it.P[0]}, R: it.R + 4}, true
		case it.Kind == Rect:
			x0, x1 := minmax(it.P[0].X, it.P[1].X)
			y0, y1 := minmax(it.P[0].Y, it.P[1].Y)
			return Item{Kind: Rect, P: []Point{{x0 - 3, y0 - 3}, {x1 + 3, y1 + 3}}}, true
		}
	}
	return Item{}, false
}

// Recite says the named readouts in words, "label text" joined by
// semicolons, in the order named: the numbers a scene's description shares
// with its panel. Names the scene does not show now are skipped.
func Recite(rs []Readout, names ...string) string {
	var parts []string
	for _, name := range names {
		for _, r := range rs {
			if r.Name == name && r.Text != "" {
				parts = append(parts, r.Label+" "+r.Text)
				break
			}
		}
	}
	out := strings.Join(parts, "; ")
	// A sentence starts in capitals, but only a Latin letter is raised:
	// κ raised is K, σ is Σ, a sum.
	if out != "" && out[0] >= 'a' && out[0] <= 'z' {
		out = string(out[0]-'a'+'A') + out[1:]
	}
	return out
}
