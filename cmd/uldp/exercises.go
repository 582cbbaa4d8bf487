package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/viz/classroom"
)

// cmdExercises lists a pack's exercises or writes its instructor's key.
func cmdExercises(e *env, args []string) error {
	if len(args) == 0 || (args[0] != "list" && args[0] != "solve") {
		return usagef("write uldp exercises list [--pack builtin|FILE] or uldp exercises solve [--pack builtin|FILE]")
	}
	verb := args[0]
	fs := flags(e, "exercises "+verb, "exercises "+verb+" [--pack builtin|FILE] [--student NAME] [--format json|text]")
	pack := fs.String("pack", "builtin", "the exercise pack: builtin, or a pack's JSON file")
	student := fs.String("student", "", "the student whose own numbers to show (exercises that vary a setting give each student their own)")
	var f format
	f.register(fs)
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if err := exercise.CheckStudent(*student); err != nil {
		return usagef("--%v", err)
	}
	p, err := readPack(*pack)
	if err != nil {
		return err
	}
	p = p.For(*student)
	if verb == "solve" {
		key, err := p.Key(classroom.Lab{})
		if err != nil {
			return usageError{err}
		}
		return f.emit(e, map[string]any{"answers": key}, func(w io.Writer) {
			for _, x := range p.Exercises {
				fmt.Fprintf(w, "%s\t%v\n", x.ID, key[x.ID])
			}
		})
	}
	type item struct {
		ID       string        `json:"id"`
		Lesson   string        `json:"lesson"`
		Kind     exercise.Kind `json:"kind"`
		Question string        `json:"question"`
	}
	out := make([]item, len(p.Exercises))
	for i, x := range p.Exercises {
		out[i] = item{x.ID, x.Lesson, x.Kind, x.Question}
	}
	return f.emit(e, out, func(w io.Writer) {
		fmt.Fprintf(w, "%s: %d exercises\n", p.Title, len(p.Exercises))
		for _, x := range out {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", x.ID, x.Lesson, x.Kind, x.Question)
		}
	})
}

// cmdGrade grades hand-ins against a pack: one student's report, or a
// gradebook of many (files and directories of them), or one submission's
// results.json for Gradescope's autograder.
func cmdGrade(e *env, args []string) error {
	fs := flags(e, "grade", "grade --answers FILE|DIR [FILE|DIR…] [--pack builtin|FILE] [--format json|text|csv|gradescope]")
	pack := fs.String("pack", "builtin", "the exercise pack: builtin, or a pack's JSON file")
	answers := fs.String("answers", "", `hand-ins: {"student": …, "answers": {id: answer, …}} files (what the site and the desktop app save), or directories of them (their *.json); more may follow the flags`)
	out := fs.String("format", "json", "json or text: one hand-in's report, or a gradebook of several; csv: a gradebook; gradescope: one submission's results.json")
	more, err := parseAmong(fs, args)
	if err != nil {
		return err
	}
	if !slices.Contains([]string{"json", "text", "csv", "gradescope"}, *out) {
		return usagef("--format %q: use json, text, csv or gradescope", *out)
	}
	if err := required(fs, "answers"); err != nil {
		return err
	}
	files, err := handinFiles(append([]string{*answers}, more...))
	if err != nil {
		return err
	}
	p, err := readPack(*pack)
	if err != nil {
		return err
	}
	if len(files) == 1 && *out != "csv" {
		r, err := gradeFile(p, files[0])
		if err != nil {
			return usageError{err}
		}
		if *out == "gradescope" {
			return format{}.emit(e, gradescope(p, r.Report), nil)
		}
		return format{text: *out == "text"}.emit(e, r.Report, func(w io.Writer) {
			fmt.Fprintf(w, "score %d of %d\n", r.Score, r.Total)
			for _, x := range r.Results {
				mark := "✗"
				if x.Correct {
					mark = "✓"
				}
				fmt.Fprintf(w, "%s %s\t%s\n", mark, x.ID, x.Feedback)
			}
		})
	}
	if *out == "gradescope" {
		return usagef("--format gradescope writes one submission's results.json: give one hand-in, not %d", len(files))
	}
	book := gradeAll(p, files)
	var werr error
	switch *out {
	case "csv":
		werr = book.WriteCSV(e.stdout)
	case "text":
		werr = format{text: true}.emit(e, book, book.WriteText)
	default:
		werr = format{}.emit(e, book, nil)
	}
	if werr != nil {
		return werr
	}
	if bad := book.Failed(); len(bad) > 0 {
		return usagef("%d of %d hand-ins could not be graded (their rows say why): %s", len(bad), len(files), strings.Join(bad, ", "))
	}
	return nil
}

// parseAmong parses flags written before, between or after positional
// arguments (uldp grade --answers a.json b.json --format csv), which
// package flag alone would stop at, and returns the positional ones.
func parseAmong(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usageError{err}
		}
		if fs.NArg() == 0 {
			return pos, nil
		}
		pos = append(pos, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// handinFiles expands the hand-ins named: a directory stands for its
// *.json files, in name order.
func handinFiles(names []string) ([]string, error) {
	var files []string
	for _, n := range names {
		st, err := os.Stat(n)
		if err != nil {
			return nil, usagef("--answers: %v", err)
		}
		if !st.IsDir() {
			files = append(files, n)
			continue
		}
		in, err := filepath.Glob(filepath.Join(n, "*.json"))
		if err != nil || len(in) == 0 {
			return nil, usagef("--answers %s: a directory with no hand-ins (*.json files) in it", n)
		}
		files = append(files, in...) // Glob sorts
	}
	return files, nil
}

// graded is one hand-in's grade.
type graded struct {
	File    string
	Student string
	exercise.Report
}

// gradeFile reads and grades one hand-in; its errors name the file.
func gradeFile(p *exercise.Pack, name string) (graded, error) {
	g := graded{File: name}
	file, err := os.Open(name)
	if err != nil {
		return g, fmt.Errorf("--answers: %v", err)
	}
	defer file.Close()
	h, err := exercise.DecodeHandin(file)
	if err == nil {
		err = h.For(p)
	}
	if err == nil {
		g.Student = h.Student
		g.Report, err = p.For(h.Student).Grade(h.Answers, classroom.Lab{})
	}
	if err != nil {
		return g, fmt.Errorf("%s: %v", name, err)
	}
	return g, nil
}

// gradescope is Gradescope's autograder results.json for one graded
// submission: a test per exercise, worth a point.
func gradescope(p *exercise.Pack, r exercise.Report) any {
	type test struct {
		Score    float64 `json:"score"`
		MaxScore float64 `json:"max_score"`
		Status   string  `json:"status"`
		Name     string  `json:"name"`
		Number   string  `json:"number"`
		Output   string  `json:"output"`
	}
	tests := make([]test, len(r.Results))
	for i, x := range r.Results {
		t := test{MaxScore: 1, Status: "failed", Name: x.ID, Number: strconv.Itoa(i + 1), Output: x.Feedback}
		if x.Correct {
			t.Score, t.Status = 1, "passed"
		}
		tests[i] = t
	}
	return struct {
		Score  float64 `json:"score"`
		Output string  `json:"output"`
		Tests  []test  `json:"tests"`
	}{float64(r.Score), fmt.Sprintf("%s: %d of %d exercises right", p.Title, r.Score, r.Total), tests}
}

// readPack reads the built-in pack or a pack file; a malformed pack is a
// usage error naming its place.
func readPack(name string) (*exercise.Pack, error) {
	p, err := classroom.ReadPack(name)
	if err != nil {
		return nil, usagef("--pack %v", err)
	}
	return p, nil
}
