package exercise

import (
	"hash/fnv"
	"maps"
	"math"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/uldplab/uldp/core/format"
)

// Range is a setting a numeric or predict exercise varies per student:
// the values Min, Min + Step, … up to Max.
type Range struct {
	Min  float64 `json:"min"`
	Max  float64 `json:"max"`
	Step float64 `json:"step"`
}

// MaxValues bounds how many values a Range may take.
const MaxValues = 1000

// count is how many values r takes.
func (r Range) count() int { return int(math.Floor((r.Max-r.Min)/r.Step+1e-9)) + 1 }

// value is r's k-th value, written with no more digits than Min and Step
// have.
func (r Range) value(k int) string {
	digits := max(decimals(r.Min), decimals(r.Step))
	v := strconv.FormatFloat(r.Min+float64(k)*r.Step, 'f', digits, 64)
	if strings.Contains(v, ".") {
		v = strings.TrimRight(strings.TrimRight(v, "0"), ".")
	}
	if v == "-0" {
		v = "0"
	}
	return v
}

// decimals is how many digits x has after the point, written shortest.
func decimals(x float64) int {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if i := strings.Index(s, "."); i >= 0 {
		return len(s) - i - 1
	}
	return 0
}

var settingPattern = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// checkVary validates an exercise's varied settings: each a setting of the
// state its key is read at, named in the question as {name}, with a
// range of 2 to MaxValues values.
func (e Exercise) checkVary(path string) error {
	if len(e.Vary) == 0 {
		return nil
	}
	if e.Kind != Numeric && e.Kind != Predict || e.Answer.Readout == "" {
		return format.Errorf("%s.vary: only a numeric or predict exercise whose key is a readout varies (its key is read at each student's setting)", path)
	}
	q, err := url.ParseQuery(e.KeyState())
	if err != nil {
		return format.Errorf("%s.vary: the key's state cannot be read: %v", path, err)
	}
	for _, name := range slices.Sorted(maps.Keys(e.Vary)) {
		r, where := e.Vary[name], path+".vary."+name
		switch n := r.count(); {
		case !settingPattern.MatchString(name):
			return format.Errorf("%s: a setting's name is lower-case letters, digits and hyphens (\"eps\")", where)
		case !q.Has(name):
			return format.Errorf("%s: the key's state (%s) has no setting %s to vary", where, map[bool]string{true: "answer.at", false: "state"}[e.Answer.At != ""], name)
		case !strings.Contains(e.Question, "{"+name+"}"):
			return format.Errorf("%s: the question must show each student's value: write {%s} in it", where, name)
		case math.IsNaN(r.Min) || math.IsInf(r.Min, 0) || math.IsNaN(r.Max) || math.IsInf(r.Max, 0) || !(r.Step > 0) || math.IsInf(r.Step, 0):
			return format.Errorf("%s: min, max and step must be finite, step above 0", where)
		case !(r.Min < r.Max) || n < 2 || n > MaxValues:
			return format.Errorf("%s: from min to max by step must give 2 to %d values", where, MaxValues)
		}
	}
	return nil
}

// For returns the pack as student sees it: each exercise that varies a
// setting takes the student's own value of it, in its key's state and in
// its question, hints and explanation ({name}). The value is drawn from the
// pack's title, the exercise, the student and the setting alone, so the
// page, the desktop app and the grader agree on it, and two students
// (almost always) get different numbers. Exercises that vary nothing are
// shared.
func (p *Pack) For(student string) *Pack {
	out := *p
	out.Exercises = slices.Clone(p.Exercises)
	for i, e := range out.Exercises {
		if len(e.Vary) == 0 {
			continue
		}
		q, _ := url.ParseQuery(e.KeyState()) // checked by Decode
		for _, name := range slices.Sorted(maps.Keys(e.Vary)) {
			v := p.value(e, student, name)
			q.Set(name, v)
			e.Question = strings.ReplaceAll(e.Question, "{"+name+"}", v)
			e.Explanation = strings.ReplaceAll(e.Explanation, "{"+name+"}", v)
			e.Hints = slices.Clone(e.Hints)
			for j, h := range e.Hints {
				e.Hints[j] = strings.ReplaceAll(h, "{"+name+"}", v)
			}
		}
		state := setAll(e.KeyState(), q)
		if e.Answer.At != "" {
			e.Answer.At = state
		} else {
			e.State = state
		}
		e.Vary = nil // this student's
		out.Exercises[i] = e
	}
	return &out
}

// value is student's own value of e's varied setting name.
func (p *Pack) value(e Exercise, student, name string) string {
	h := fnv.New64a()
	for _, s := range []string{p.Title, e.ID, student, name} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	r := e.Vary[name]
	return r.value(int(h.Sum64() % uint64(r.count())))
}

// Variant names student's own numbers of exercise e of p, as the settings
// it varies ("eps=0.7&k=3", in the settings' order), or "" for an exercise
// that varies nothing: what a class server stores beside an answer, so a
// teacher reads a grading with the numbers it was made on.
func (p *Pack) Variant(e Exercise, student string) string {
	q := url.Values{}
	for name := range e.Vary {
		q.Set(name, p.value(e, student, name))
	}
	return q.Encode()
}

// setAll writes q's values into state, keeping its settings' order (a
// lesson applies them in its own order anyway, but a state that reads as
// written is easier to check by eye).
func setAll(state string, q url.Values) string {
	parts := strings.Split(state, "&")
	for i, kv := range parts {
		k, _, _ := strings.Cut(kv, "=")
		if name, err := url.QueryUnescape(k); err == nil && q.Has(name) {
			parts[i] = k + "=" + url.QueryEscape(q.Get(name))
		}
	}
	return strings.Join(parts, "&")
}

// Extremes are e's variants at each varied setting's smallest, second and
// largest value (the others as written), for checking that the lesson
// takes the whole range and its step (an integer setting stepped by 0.5
// fails at the second).
func (e Exercise) Extremes() []Exercise {
	var out []Exercise
	for _, name := range slices.Sorted(maps.Keys(e.Vary)) {
		r := e.Vary[name]
		for _, k := range []int{0, 1, r.count() - 1} {
			v := e
			q, _ := url.ParseQuery(e.KeyState())
			q.Set(name, r.value(k))
			if state := setAll(e.KeyState(), q); e.Answer.At != "" {
				v.Answer.At = state
			} else {
				v.State = state
			}
			v.Vary = nil
			out = append(out, v)
		}
	}
	return out
}

// personal refuses a pack whose exercises still vary: its keys are a
// student's, so it is graded as Pack.For(student).
func (p *Pack) personal() error {
	for _, e := range p.Exercises {
		if len(e.Vary) > 0 {
			return format.Errorf("exercise %s varies per student: grade and solve the student's pack, Pack.For(student)", e.ID)
		}
	}
	return nil
}

// MaxStudent bounds a student's name, in bytes.
const MaxStudent = 256

// CheckStudent refuses a student's name that is too long, not UTF-8, or
// holds control or invisible formatting characters: names travel in
// links, hand-ins and CSV, and a teacher tells students apart by them.
func CheckStudent(name string) error {
	switch {
	case len(name) > MaxStudent:
		return format.Errorf("student: a name of %d bytes; write at most %d", len(name), MaxStudent)
	case !utf8.ValidString(name):
		return format.Errorf("student: the name is not UTF-8 text")
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return format.Errorf("student: the name holds a control character (a tab or a line break?)")
	case strings.IndexFunc(name, func(r rune) bool { return unicode.Is(unicode.Cf, r) }) >= 0:
		// Invisible (a zero-width space) or turning the text around (a
		// right-to-left override): "Bob\u200b" would look like Bob.
		return format.Errorf("student: the name holds an invisible formatting character (pasted from a document?): type it anew")
	}
	return nil
}
