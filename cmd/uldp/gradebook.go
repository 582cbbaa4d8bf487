package main

import (
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/uldplab/uldp/core/exercise"
)

// gradeAll grades the hand-ins a core each at a time. Their keys are
// computed once and shared (classroom.Lab keeps them), so a class costs
// little more than its manipulations and find-the-bug pairs.
func gradeAll(p *exercise.Pack, files []string) exercise.Gradebook {
	book := exercise.NewGradebook(p)
	book.Rows = make([]exercise.Row, len(files))
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

func gradeRow(p *exercise.Pack, file string) exercise.Row {
	g, err := gradeFile(p, file)
	r := exercise.Row{File: file, Student: g.Student, Total: len(p.Exercises)}
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
