package main

import (
	"fmt"
	"io"
	"os"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/viz/classroom"
)

// cmdExercises lists a pack's exercises or writes its instructor's key.
func cmdExercises(e *env, args []string) error {
	if len(args) == 0 || (args[0] != "list" && args[0] != "solve") {
		return usagef("write uldp exercises list [--pack builtin|FILE] or uldp exercises solve [--pack builtin|FILE]")
	}
	verb := args[0]
	fs := flags(e, "exercises "+verb, "exercises "+verb+" [--pack builtin|FILE] [--format json|text]")
	pack := fs.String("pack", "builtin", "the exercise pack: builtin, or a pack's JSON file")
	var f format
	f.register(fs)
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	p, err := readPack(*pack)
	if err != nil {
		return err
	}
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

// cmdGrade grades a student's answers against a pack.
func cmdGrade(e *env, args []string) error {
	fs := flags(e, "grade", "grade --answers FILE [--pack builtin|FILE] [--format json|text]")
	pack := fs.String("pack", "builtin", "the exercise pack: builtin, or a pack's JSON file")
	answers := fs.String("answers", "", `the student's answers: {"answers": {id: answer, …}} (the hand-in the site and the desktop app save)`)
	var f format
	f.register(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := required(fs, "answers"); err != nil {
		return err
	}
	p, err := readPack(*pack)
	if err != nil {
		return err
	}
	file, err := os.Open(*answers)
	if err != nil {
		return usagef("--answers: %v", err)
	}
	defer file.Close()
	h, err := exercise.DecodeHandin(file)
	if err == nil {
		err = h.For(p)
	}
	if err != nil {
		return usagef("%s: %v", *answers, err)
	}
	r, err := p.Grade(h.Answers, classroom.Lab{})
	if err != nil {
		return usagef("%s: %v", *answers, err)
	}
	return f.emit(e, r, func(w io.Writer) {
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

// readPack reads the built-in pack or a pack file; a malformed pack is a
// usage error naming its place.
func readPack(name string) (*exercise.Pack, error) {
	p, err := classroom.ReadPack(name)
	if err != nil {
		return nil, usagef("--pack %v", err)
	}
	return p, nil
}
