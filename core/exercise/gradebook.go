package exercise

import (
	"encoding/csv"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/format"
)

// Gradebook is a class's answers graded against one pack: a row per
// student (per hand-in, for `uldp grade`), a point per exercise right. The
// CLI's gradebook of hand-ins and a class server's export are both one.
type Gradebook struct {
	Pack      string   `json:"pack"`
	Exercises []string `json:"exercises"`
	Rows      []Row    `json:"handins"`
}

// NewGradebook is p's empty gradebook: its exercises' ids, in order.
func NewGradebook(p *Pack) Gradebook {
	b := Gradebook{Pack: p.Title, Exercises: []string{}, Rows: []Row{}}
	for _, x := range p.Exercises {
		b.Exercises = append(b.Exercises, x.ID)
	}
	return b
}

// Row is one student's line in a Gradebook; Error says why their answers
// could not be graded (then it has no points). File is the hand-in read,
// or "" where there is none (a class server's).
type Row struct {
	File    string         `json:"file"`
	Student string         `json:"student"`
	Points  map[string]int `json:"points,omitempty"`
	Score   int            `json:"score"`
	Total   int            `json:"total"`
	Error   string         `json:"error,omitempty"`
}

// Failed lists the hand-ins that could not be graded.
func (b Gradebook) Failed() []string {
	var out []string
	for _, r := range b.Rows {
		if r.Error != "" {
			out = append(out, r.File)
		}
	}
	return out
}

// WriteCSV writes a spreadsheet's table: student, file, a column per
// exercise (1 right, 0 not; empty when the hand-in could not be graded),
// score, total and the error.
func (b Gradebook) WriteCSV(w io.Writer) error {
	c := csv.NewWriter(w)
	head := append([]string{"student", "file"}, b.Exercises...)
	if err := c.Write(append(head, "score", "total", "error")); err != nil {
		return err
	}
	for _, r := range b.Rows {
		rec := []string{cell(r.Student), cell(r.File)}
		for _, id := range b.Exercises {
			if pt, ok := r.Points[id]; ok {
				rec = append(rec, strconv.Itoa(pt))
			} else {
				rec = append(rec, "")
			}
		}
		if err := c.Write(append(rec, strconv.Itoa(r.Score), strconv.Itoa(r.Total), cell(r.Error))); err != nil {
			return err
		}
	}
	c.Flush()
	return c.Error()
}

// WriteText writes a row per hand-in (or student): score, student, file, and the error.
func (b Gradebook) WriteText(w io.Writer) {
	noun := "students" // a class server's rows
	if slices.ContainsFunc(b.Rows, func(r Row) bool { return r.File != "" }) {
		noun = "hand-ins"
	}
	io.WriteString(w, format.Sprintf("%s: %d %s\n", b.Pack, len(b.Rows), noun))
	for _, r := range b.Rows {
		if r.Error != "" {
			io.WriteString(w, format.Sprintf("—\t%s\t%s\tnot graded: %s\n", r.Student, r.File, r.Error))
			continue
		}
		io.WriteString(w, format.Sprintf("%d of %d\t%s\t%s\n", r.Score, r.Total, r.Student, r.File))
	}
}

// cell keeps a student's text from being read as a formula by the
// spreadsheet the teacher opens the gradebook in (a student named
// "=HYPERLINK(…)"): such text gets a leading apostrophe, as OWASP advises.
func cell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
