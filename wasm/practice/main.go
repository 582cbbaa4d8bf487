//go:build js && wasm

// Command practice is the page's grader when no server answers (a copy of
// the site served as plain files): every lesson with the classroom's
// grader, run in a Web Worker (site/static/textengine.js) so grading never
// stalls the page. It answers as the server's API does, from the same
// code, as the global object `uldpPractice`:
//
//	sheet(pack, student)  pack is "builtin" (a JSON string) or a pack's JSON
//	                      → {data: the sheet's JSON} (POST /api/pack)
//	grade(request)        {"pack", "student", "answers"} → {data: the
//	                      report's JSON} (POST /api/grade)
//
// or {error: message}. The keys are computed in the student's browser, so
// the page labels its gradings practice, not marks.
package main

import (
	"encoding/json"

	"github.com/uldplab/uldp/viz/classroom"
	"github.com/uldplab/uldp/wasm"
)

func main() {
	wasm.ServeText("uldpPractice", map[string]wasm.Text{"sheet": sheet, "grade": grade})
}

func sheet(pack, student string) ([]byte, error) {
	s, err := classroom.SheetOf([]byte(pack), student)
	if err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

func grade(request, _ string) ([]byte, error) {
	req, err := classroom.DecodeRequest([]byte(request))
	if err != nil {
		return nil, err
	}
	rep, err := classroom.GradeAnswered(req.Pack.For(req.Student), req.Answers)
	if err != nil {
		return nil, err
	}
	return json.Marshal(rep)
}
