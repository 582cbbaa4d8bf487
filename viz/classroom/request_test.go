package classroom

import "testing"

// The grading request's decoder never panics, whatever the body, and
// answers every body it refuses with an error.
func FuzzDecodeRequest(f *testing.F) {
	for _, seed := range []string{
		`{"pack": "builtin", "answers": {"user-level-ratio": 1}}`,
		`{"pack": {"version": 1, "title": "t", "exercises": [{"id": "a", "lesson": "calibration", "kind": "numeric", "question": "q", "answer": {"value": 1}, "explanation": "e"}]}, "answers": {"a": 1}}`,
		`{"pack": [[[]]], "answers": {}}`, `{}`, `[]`, `{"pack": "builtin", "answers": {"a": 1e999}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := DecodeRequest(b)
		if err == nil && (req.Pack == nil || len(req.Answers) == 0 || len(req.Answers) > MaxAnswers) {
			t.Fatalf("accepted %q without a pack or with %d answers", b, len(req.Answers))
		}
	})
}
