package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/uldplab/uldp/core/exercise"
)

// gradebook is many hand-ins graded against one pack: a row per hand-in,
// a point per exercise right.
type gradebook struct {
	Pack      string   `json:"pack"`
	Exercises []string `json:"exercises"`
	Rows      []row    `json:"handins"`
}

// row is one hand-in in the gradebook; Error says why it could not be
// graded (then it has no points).
type row struct {
	File    string         `json:"file"`
	Student string         `json:"student"`
	Points  map[string]int `json:"points,omitempty"`
	Score   int            `json:"score"`
	Total   int            `json:"total"`
	Error   string         `json:"error,omitempty"`
}

// gradeAll grades the hand-ins a core each at a time. Their keys are
// computed once and shared (classroom.Lab keeps them), so a class costs
// little more than its manipulations and find-the-bug pairs.
func gradeAll(p *exercise.Pack, files []string) gradebook {
	book := gradebook{Pack: p.Title, Rows: make([]row, len(files))}
	for _, x := range p.Exercises {
		book.Exercises = append(book.Exercises, x.ID)
	}
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				book.Rows[i] = gradeRow(p, files[i])
			}
		}()
	}
	for i := range files {
		next <- i
	}
	close(next)
	wg.Wait()
	return book
}

func gradeRow(p *exercise.Pack, file string) row {
	g, err := gradeFile(p, file)
	r := row{File: file, Student: g.Student, Total: len(p.Exercises)}
	if r.Student == "" {
		r.Student = strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
	}
	if err != nil {
		r.Error = err.Error()
		return r
	}
	r.Points = map[string]int{}
	for _, x := range g.Results {
		if x.Correct {
			r.Points[x.ID] = 1
		} else {
			r.Points[x.ID] = 0
		}
	}
	r.Score = g.Score
	return r
}

// failed lists the hand-ins that could not be graded.
func (b gradebook) failed() []string {
	var out []string
	for _, r := range b.Rows {
		if r.Error != "" {
			out = append(out, r.File)
		}
	}
	return out
}

// writeCSV writes a spreadsheet's table: student, file, a column per
// exercise (1 right, 0 not; empty when the hand-in could not be graded),
// score, total and the error.
func (b gradebook) writeCSV(w io.Writer) error {
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

// writeText writes a row per hand-in: score, student, file, and the error.
func (b gradebook) writeText(w io.Writer) {
	fmt.Fprintf(w, "%s: %d hand-ins\n", b.Pack, len(b.Rows))
	for _, r := range b.Rows {
		if r.Error != "" {
			fmt.Fprintf(w, "—\t%s\t%s\tnot graded: %s\n", r.Student, r.File, r.Error)
			continue
		}
		fmt.Fprintf(w, "%d of %d\t%s\t%s\n", r.Score, r.Total, r.Student, r.File)
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
