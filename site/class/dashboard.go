package class

import (
	"cmp"
	"encoding/json"
	"slices"
	"strconv"
	"time"

	"github.com/uldplab/uldp/core/exercise"
)

// Dashboard is what a teacher sees of a class while it works: per
// exercise, how many answered and how many are right, the wrong answers
// given most and the time spent; per student, their progress.
type Dashboard struct {
	Title     string          `json:"title"`
	Code      string          `json:"code"`
	Pack      string          `json:"pack"`
	Tries     int             `json:"tries"`
	Exercises []ExerciseStats `json:"exercises"`
	Students  []Progress      `json:"students"`
	// Answers counts the submissions stored.
	Answers int `json:"answers"`
	// Updated is when the dashboard was read, in Unix milliseconds.
	Updated int64 `json:"updated"`
	// RefreshSeconds is how often the server would have the dashboard
	// read again.
	RefreshSeconds int `json:"refresh_seconds"`
}

// ExerciseStats is one exercise across the class.
type ExerciseStats struct {
	ID       string `json:"id"`
	Lesson   string `json:"lesson"`
	Kind     string `json:"kind"`
	Question string `json:"question"`
	// Varies says each student has their own numbers: the question's
	// {settings} are theirs.
	Varies bool `json:"varies"`
	// Answered counts the students who answered at least once, Right
	// those with a right answer.
	Answered int `json:"answered"`
	Right    int `json:"right"`
	// Wrong are the wrong answers given most, most first (at most
	// MaxWrong; none for manipulations, whose answers are whole states).
	Wrong []Count `json:"wrong"`
	// MedianSeconds is the median, over the students who answered, of
	// the time the exercise was open before their last answer.
	MedianSeconds float64 `json:"median_seconds"`
}

// Count is one wrong answer and how many students gave it.
type Count struct {
	Answer   string `json:"answer"`
	Students int    `json:"students"`
}

// Progress is one student across the pack.
type Progress struct {
	Name     string `json:"name"`
	Answered int    `json:"answered"`
	Right    int    `json:"right"`
	// Last is when they last answered, in Unix milliseconds (0 for
	// never).
	Last int64 `json:"last"`
}

// MaxWrong bounds the wrong answers listed per exercise.
const MaxWrong = 3

// Summarize is the dashboard of class c (of pack p) from its roster, as
// read at now.
func Summarize(c Class, p *exercise.Pack, r Roster, now time.Time) Dashboard {
	d := Dashboard{Title: c.Title, Code: c.Code, Pack: p.Title, Tries: p.TriesEach(), Answers: len(r.Submissions), Updated: now.UnixMilli(),
		Exercises: []ExerciseStats{}, Students: []Progress{}}
	byStudent := map[int64]int{}
	for i, st := range r.Students {
		byStudent[st.ID] = i
		d.Students = append(d.Students, Progress{Name: st.Name})
	}
	type key struct {
		student int64
		id      string
	}
	spent := map[key]time.Duration{}
	right := map[key]bool{}
	wrong := map[string]map[string]map[int64]bool{} // exercise → answer → students
	exercises := map[string]exercise.Exercise{}
	for _, e := range p.Exercises {
		exercises[e.ID] = e
	}
	for _, sub := range r.Submissions {
		k := key{sub.Student, sub.Exercise}
		spent[k] = sub.Spent // the last answer's: the page counts from when the exercise opened
		if sub.Correct {
			right[k] = true
		} else if e, ok := exercises[sub.Exercise]; ok && e.Kind != exercise.Manipulate {
			a := answerText(e, sub.Answer)
			if wrong[sub.Exercise] == nil {
				wrong[sub.Exercise] = map[string]map[int64]bool{}
			}
			if wrong[sub.Exercise][a] == nil {
				wrong[sub.Exercise][a] = map[int64]bool{}
			}
			wrong[sub.Exercise][a][sub.Student] = true
		}
		if i, ok := byStudent[sub.Student]; ok {
			d.Students[i].Last = max(d.Students[i].Last, sub.At.UnixMilli())
		}
	}
	for k := range spent {
		if i, ok := byStudent[k.student]; ok {
			d.Students[i].Answered++
			if right[k] {
				d.Students[i].Right++
			}
		}
	}
	for _, e := range p.Exercises {
		x := ExerciseStats{ID: e.ID, Lesson: e.Lesson, Kind: string(e.Kind), Question: e.Question, Varies: len(e.Vary) > 0, Wrong: []Count{}}
		var times []float64
		for k, t := range spent {
			if k.id == e.ID {
				x.Answered++
				times = append(times, t.Seconds())
				if right[k] {
					x.Right++
				}
			}
		}
		x.MedianSeconds = median(times)
		for a, who := range wrong[e.ID] {
			x.Wrong = append(x.Wrong, Count{Answer: a, Students: len(who)})
		}
		slices.SortFunc(x.Wrong, func(a, b Count) int {
			return cmp.Or(cmp.Compare(b.Students, a.Students), cmp.Compare(a.Answer, b.Answer))
		})
		x.Wrong = x.Wrong[:min(len(x.Wrong), MaxWrong)]
		d.Exercises = append(d.Exercises, x)
	}
	return d
}

// answerText is an answer as a teacher reads it: a number as given, a
// choice by its words, a find-the-bug answer by the variant it names.
func answerText(e exercise.Exercise, raw json.RawMessage) string {
	switch e.Kind {
	case exercise.Choice:
		var i int
		if json.Unmarshal(raw, &i) == nil && i >= 0 && i < len(e.Answer.Choices) {
			return e.Answer.Choices[i]
		}
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case exercise.FindTheBug:
		var b exercise.BugAnswer
		if json.Unmarshal(raw, &b) == nil {
			return b.Mutant
		}
	case exercise.Numeric, exercise.Predict:
		var x float64
		if json.Unmarshal(raw, &x) == nil {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
	}
	return cut(string(raw), 60)
}

// cut keeps the first n characters of s, marking a cut with "…".
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// Gradebook is class's marks in the columns `uldp grade --format csv`
// writes: a row per student, a point per exercise answered right (an
// exercise not answered, or not right, is 0).
func Gradebook(p *exercise.Pack, r Roster) exercise.Gradebook {
	b := exercise.NewGradebook(p)
	right := map[int64]map[string]bool{}
	for _, sub := range r.Submissions {
		if sub.Correct {
			if right[sub.Student] == nil {
				right[sub.Student] = map[string]bool{}
			}
			right[sub.Student][sub.Exercise] = true
		}
	}
	for _, st := range r.Students {
		row := exercise.Row{Student: st.Name, Points: map[string]int{}, Total: len(p.Exercises)}
		for _, id := range b.Exercises {
			if right[st.ID][id] {
				row.Points[id] = 1
				row.Score++
			} else {
				row.Points[id] = 0
			}
		}
		b.Rows = append(b.Rows, row)
	}
	return b
}
