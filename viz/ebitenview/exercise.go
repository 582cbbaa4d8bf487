package ebitenview

import (
	"fmt"
	"image"
	"image/color"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/classroom"
)

// exField names the answer's text field while it is being typed into; no
// lesson control has a name with a space.
const exField = "exercise answer"

// exerciseView is exercise mode's state beside its session: the number
// being typed, and whether it is.
type exerciseView struct {
	s       *classroom.Session
	typed   string
	editing bool // the answer's field has the keyboard
}

// exerciseWidgets lays out the open exercise at the panel's top: where it
// is, its question, the answer's inputs (or the graded answer's feedback),
// hints shown, and the buttons that page through the pack.
func exerciseWidgets(ex *exerciseView, lesson string, label func(string, color.Color, float64), row func(...widget)) {
	s := ex.s
	e := s.Exercise()
	right, answered := s.Score()
	total := len(s.Pack.Exercises)
	label(fmt.Sprintf("Exercise %d of %d · score %d of %d (%d answered)", s.Current+1, total, right, total, answered), rgba(viz.Blue, 1), 13)
	label(e.Question, rgba(viz.Ink, 1), 13)
	res, graded := s.Result(e.ID)
	switch {
	case graded:
		c := rgba(viz.Green, 1)
		if !res.Correct {
			c = rgba(viz.Vermillion, 1)
		}
		label(res.Feedback, c, 12)
	case e.Kind == exercise.Numeric || e.Kind == exercise.Predict:
		field := ex.typed
		if ex.editing {
			field += "▏"
		} else if field == "" {
			field = "click, type a number, Enter"
		}
		row(widget{kind: "exfield", text: field, act: "field"})
	case e.Kind == exercise.Choice:
		letters := make([]widget, len(e.Answer.Choices))
		for i, c := range e.Answer.Choices {
			l := string(rune('A' + i))
			label(l+". "+c, rgba(viz.Ink, 1), 12)
			letters[i] = widget{kind: "exbutton", text: l, act: "choice:" + strconv.Itoa(i)}
		}
		row(letters...)
	case lesson != e.Lesson:
		label("open this exercise's lesson to answer (Restart)", rgba(viz.Muted, 1), 12)
	case e.Kind == exercise.Manipulate:
		row(widget{kind: "exbutton", text: "Submit the lesson as it is now", act: "submit"})
	default:
		row(widget{kind: "exbutton", text: "Submit the variant and pair under audit", act: "submit"})
	}
	for i := range s.Hints[e.ID] {
		label(fmt.Sprintf("Hint %d: %s", i+1, e.Hints[i]), rgba(viz.Muted, 1), 12)
	}
	nav := []widget{{kind: "exbutton", text: "◀ [", act: "prev"}, {kind: "exbutton", text: "] ▶", act: "next"}, {kind: "exbutton", text: "Restart", act: "restart"}}
	if s.Hints[e.ID] < len(e.Hints) {
		nav = append(nav, widget{kind: "exbutton", text: "Hint", act: "hint"})
	}
	row(nav...)
}

// exAct does what an exercise button says.
func (g *Game) exAct(act string) {
	ex := g.ex
	s := ex.s
	switch {
	case act == "prev" || act == "next":
		i := s.Current - 1
		if act == "next" {
			i = s.Current + 1
		}
		if i < 0 || i >= len(s.Pack.Exercises) {
			return
		}
		s.Current, ex.typed = i, ""
		g.exOpen()
	case act == "restart":
		g.exOpen()
	case act == "hint":
		s.Hints[s.Exercise().ID]++
	case act == "submit":
		g.graded(s.AnswerState(g.app))
	case strings.HasPrefix(act, "choice:"):
		i, _ := strconv.Atoi(strings.TrimPrefix(act, "choice:"))
		g.graded(s.AnswerChoice(i))
	}
}

// exOpen opens the session's exercise in its lesson, as it starts.
func (g *Game) exOpen() {
	s := g.ex.s
	right, answered := s.Score()
	g.logf("exercise %d of %d: %d right, %d answered", s.Current+1, len(s.Pack.Exercises), right, answered)
	g.report(s.Open(g.app))
}

// exType commits the typed number as the answer.
func (g *Game) exType(text string) {
	x, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	if err != nil {
		g.report(fmt.Errorf("%q is not a number: write one such as 0.25 or 1e-5", text))
		return
	}
	g.ex.typed = text
	g.graded(g.ex.s.AnswerNumber(x))
}

// graded reports where the graded answer was saved, or why it was not.
func (g *Game) graded(r exercise.Result, err error) {
	if err != nil {
		g.report(err)
		return
	}
	g.logf("answer %s %s", r.ID, map[bool]string{true: "right", false: "wrong"}[r.Correct])
	g.say(note{text: "saved in " + filepath.Base(g.ex.s.Path())}, 4*time.Second)
}

// exRow lays out buttons side by side on one row.
func exRow(ws []widget, x0, w, y int) []widget {
	if len(ws) == 0 {
		return nil
	}
	bw := (w - 2*padX - 4*(len(ws)-1)) / len(ws)
	for i := range ws {
		ws[i].r = image.Rect(x0+padX+i*(bw+4), y, x0+padX+i*(bw+4)+bw, y+rowH)
	}
	return ws
}

// ExerciseControl returns the middle of the exercise control act ("field",
// "choice:1", "submit", "prev", "next", "restart", "hint") in the panel of
// a w × h window showing app in exercise mode with s, unscrolled: for
// scripts that drive the window.
func ExerciseControl(app *viz.App, s *classroom.Session, w, h int, act string) (image.Point, bool) {
	fig := FigureRect(w, h)
	ws, _ := layout(app, fig.Max.X, w-fig.Max.X, 0, note{}, "", figureShown, newPainter().width, &exerciseView{s: s})
	for _, wd := range ws {
		if wd.act == act {
			return image.Pt((wd.r.Min.X+wd.r.Max.X)/2, (wd.r.Min.Y+wd.r.Max.Y)/2), true
		}
	}
	return image.Point{}, false
}
