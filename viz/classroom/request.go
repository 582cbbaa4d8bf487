package classroom

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/core/format"
)

// MaxAnswers bounds the answers graded in one request: the page sends one
// at a time; a teacher grades a class's hand-ins with `uldp grade`.
const MaxAnswers = 64

// Request is one grading request, as the page sends it to the server
// (POST /api/grade) and to the practice grader in the browser alike:
//
//	{"pack": "builtin" | {…a pack…}, "student": "…", "answers": {id: answer}}
type Request struct {
	Pack *exercise.Pack
	// Student's own numbers are graded (exercise.Pack.For).
	Student string
	Answers exercise.Answers
}

// DecodeRequest reads a grading request: exactly one object with the pack,
// the student (optional) and 1 to MaxAnswers answers. Its pack is the
// pack as written: grading personalises it (GradeAnswered's caller does,
// with Pack.For), so decoding stays cheap.
func DecodeRequest(b []byte) (Request, error) {
	if err := exercise.CheckText(b, "the request"); err != nil {
		return Request{}, err
	}
	var req struct {
		Pack    json.RawMessage  `json:"pack"`
		Student string           `json:"student"`
		Answers exercise.Answers `json:"answers"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return Request{}, format.Errorf("the request is not {\"pack\": …, \"answers\": {id: answer}}: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Request{}, format.Errorf("the request has more after its object: send one {\"pack\": …, \"answers\": …}")
	}
	if len(req.Pack) == 0 {
		return Request{}, format.Errorf("pack is missing: give \"builtin\" or the pack itself")
	}
	if len(req.Answers) == 0 || len(req.Answers) > MaxAnswers {
		return Request{}, format.Errorf("answers: give 1 to %d answers per request (this one has %d)", MaxAnswers, len(req.Answers))
	}
	if err := exercise.CheckStudent(req.Student); err != nil {
		return Request{}, err
	}
	p, err := PackOf(req.Pack)
	if err != nil {
		return Request{}, err
	}
	return Request{Pack: p, Student: req.Student, Answers: req.Answers}, nil
}

// PackOf is the built-in pack for the JSON string "builtin", else the pack
// the JSON holds, checked against the lessons there are (Check: a request's
// check, not Validate's, which opens every lesson).
func PackOf(raw []byte) (*exercise.Pack, error) {
	var name string
	if json.Unmarshal(raw, &name) == nil {
		if name != "builtin" {
			return nil, format.Errorf("pack %q: give \"builtin\" or the pack itself (a JSON object)", name)
		}
		return exercise.Builtin()
	}
	p, err := exercise.Decode(bytes.NewReader(raw))
	if err != nil {
		return nil, format.Errorf("pack: %v", err)
	}
	if err := Check(p); err != nil {
		return nil, format.Errorf("pack: %v", err)
	}
	return p, nil
}

// SheetOf is the sheet of the pack raw names (as PackOf reads it) with
// student's own numbers: what the page shows before any answer.
func SheetOf(raw []byte, student string) (exercise.Sheet, error) {
	if err := exercise.CheckStudent(student); err != nil {
		return exercise.Sheet{}, err
	}
	p, err := PackOf(raw)
	if err != nil {
		return exercise.Sheet{}, err
	}
	return p.Sheet(student), nil
}

// GradeAnswered grades answers against p (already the student's own, see
// Pack.For) and reports the exercises answered only: score counts them
// right, of the pack's total, and an unanswered exercise's explanation
// stays with the grader until the student commits an answer.
func GradeAnswered(p *exercise.Pack, answers exercise.Answers) (exercise.Report, error) {
	rep, err := p.Grade(answers, Lab{})
	answered := exercise.Report{Total: rep.Total, Results: []exercise.Result{}}
	for _, x := range rep.Results {
		if _, ok := answers[x.ID]; ok {
			answered.Results = append(answered.Results, x)
			if x.Correct {
				answered.Score++
			}
		}
	}
	return answered, err
}
