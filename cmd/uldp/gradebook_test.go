package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/viz/classroom"
)

// BenchmarkGradebook grades a class of 200 whole hand-ins of the built-in
// pack into a gradebook, from a cold start (no key computed, no state
// seen). A student's manipulations are states of their own: the key's
// example with another seed, or a nudged ε or τ where it has none. In
// "states=10" the class lands on 10 states per exercise (students reaching
// a goal with sliders land on a few of their positions); in "states=200"
// on 200, every student's unlike any other's, each run afresh. Reports
// the seconds for the class.
func BenchmarkGradebook(b *testing.B) {
	const class = 200
	p, err := exercise.Builtin()
	if err != nil {
		b.Fatal(err)
	}
	// Each student's key: their own numbers (the keys' computing, before
	// the timer, leaves them kept; Forget below drops them again).
	keys := make([]map[string]any, class)
	for i := range keys {
		var err error
		if keys[i], err = p.For("student " + strconv.Itoa(i)).Key(classroom.Lab{}); err != nil {
			b.Fatal(err)
		}
	}
	seed := regexp.MustCompile(`(^|&)seed=\d+`)
	nudge := regexp.MustCompile(`(^|&)(eps|tau)=([0-9.]+)`)
	own := func(state string, i int) string {
		if seed.MatchString(state) {
			return seed.ReplaceAllString(state, "${1}seed="+strconv.Itoa(i+1))
		}
		return nudge.ReplaceAllStringFunc(state, func(m string) string {
			s := nudge.FindStringSubmatch(m)
			x, _ := strconv.ParseFloat(s[3], 64)
			return s[1] + s[2] + "=" + strconv.FormatFloat(x*(1+float64(i)*1e-4), 'g', -1, 64)
		})
	}
	for _, states := range []int{10, class} {
		b.Run("states="+strconv.Itoa(states), func(b *testing.B) {
			dir := b.TempDir()
			var files []string
			for i := range class {
				answers := map[string]any{}
				for _, e := range p.Exercises {
					switch e.Kind {
					case exercise.Manipulate:
						answers[e.ID] = own(e.Answer.Example, i%states)
					default:
						answers[e.ID] = keys[i][e.ID]
					}
				}
				buf, _ := json.Marshal(map[string]any{"pack": "builtin", "student": "student " + strconv.Itoa(i), "answers": answers})
				f := filepath.Join(dir, strconv.Itoa(i)+".json")
				if err := os.WriteFile(f, buf, 0o644); err != nil {
					b.Fatal(err)
				}
				files = append(files, f)
			}
			b.ResetTimer()
			var took time.Duration
			for range b.N {
				classroom.Forget()
				t0 := time.Now()
				book := gradeAll(p, files)
				took += time.Since(t0)
				if bad := book.Failed(); len(bad) > 0 {
					b.Fatalf("%d hand-ins not graded: %s", len(bad), book.Rows[0].Error)
				}
			}
			b.ReportMetric(took.Seconds()/float64(b.N), "s/class")
			if states != 10 {
				return
			}
			// The baseline in the same run: 20 of the hand-ins graded a
			// core each with nothing kept (forgotten before each one), as
			// before keys were kept, scaled to the class.
			b.StopTimer()
			t0 := time.Now()
			var wg sync.WaitGroup
			for w := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := w; i < 20; i += 2 {
						classroom.Forget()
						gradeRow(p, files[i])
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(time.Since(t0).Seconds()*class/20, "s/class-nothing-kept")
		})
	}
}
