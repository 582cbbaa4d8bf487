package api

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/uldplab/uldp/site/class"
	"github.com/uldplab/uldp/site/class/sqlite/sqlitetest"
)

// BenchmarkClassLoad is a lecture hall: 500 students join one class and
// each submits 20 answers over a minute (167 a second, each committed to
// a SQLite file with synchronous=FULL before it is answered), while the
// teacher's dashboard refreshes every 2 s. It reports the submissions'
// p50 and p99 and the dashboard's, and fails on any submission not
// answered 200. The baseline, measured in the same run, is POST
// /api/grade of the same answers: grading without a store. Outside make test (a minute and more):
//
//	go test -run '^$' -bench ClassLoad -benchtime 1x ./site/api
//
// The answers are choices, graded by lookup: what a lesson run costs to
// grade is measured by the API's own load test; this one measures the
// class store.
func BenchmarkClassLoad(b *testing.B) {
	const students, answers, over = 500, 20, time.Minute
	var xs []string
	for i := range answers {
		xs = append(xs, fmt.Sprintf(`{"id": "q%d", "lesson": "calibration", "kind": "choice", "question": "Q%d?", "answer": {"choices": ["a", "b"], "correct": 1}, "explanation": "b."}`, i, i))
	}
	pack := `{"version": 1, "title": "Load", "exercises": [` + strings.Join(xs, ",") + `]}`
	for range b.N {
		db := sqlitetest.Open(b)
		store := class.New(db)
		srv := httptest.NewServer(Handler(WithClasses(Classes{Store: store})))
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: students}, Timeout: time.Minute}
		post := func(path, cookie, body string) (int, string, http.Header, time.Duration) {
			req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			if cookie != "" {
				req.Header.Set("Cookie", cookie)
			}
			t0 := time.Now()
			res, err := client.Do(req)
			if err != nil {
				return 0, err.Error(), nil, time.Since(t0)
			}
			defer res.Body.Close()
			body2, _ := io.ReadAll(res.Body)
			return res.StatusCode, string(body2), res.Header, time.Since(t0)
		}
		code, body, _, _ := post("/api/class", "", `{"title": "Lecture", "pack": `+pack+`}`)
		if code != 201 {
			b.Fatalf("create: %d %s", code, body)
		}
		joinCode := body[strings.Index(body, `"code":"`)+8:][:9]
		teacher := body[strings.Index(body, `"teacher":"`)+11:]
		teacher = teacher[:strings.IndexByte(teacher, '"')]
		cookies := make([]string, students)
		for i := range students {
			code, body, hd, _ := post("/api/class/join", "", fmt.Sprintf(`{"code": %q, "name": "student %d"}`, joinCode, i))
			if code != 200 {
				b.Fatalf("join %d: %d %s", i, code, body)
			}
			cookies[i], _, _ = strings.Cut(hd.Get("Set-Cookie"), ";")
		}
		// The baseline, in the same run: the same answers graded by POST
		// /api/grade, which stores nothing, one at a time.
		var base []time.Duration
		for k := range 1000 {
			code, body, _, d := post("/api/grade", "", fmt.Sprintf(`{"pack": %s, "student": "s", "answers": {"q%d": %d}}`, pack, k%answers, k%2))
			if code != 200 {
				b.Fatalf("baseline: %d %s", code, body)
			}
			base = append(base, d)
		}
		b.ResetTimer()
		var mu sync.Mutex
		var lat []time.Duration
		var failed []string
		var wg sync.WaitGroup
		start := time.Now()
		for i := range students {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Each student's answers at times spread over the minute
				// (seeded: the same schedule every run).
				r := rand.New(rand.NewPCG(uint64(i), 1))
				at := make([]time.Duration, answers)
				for k := range at {
					at[k] = time.Duration(r.Int64N(int64(over)))
				}
				slices.Sort(at)
				for k, due := range at {
					time.Sleep(time.Until(start.Add(due)))
					code, body, _, d := post("/api/class/answer", cookies[i], fmt.Sprintf(`{"id": "q%d", "answer": %d, "request": "r%d", "spent": 1000}`, k, r.IntN(2), k))
					mu.Lock()
					lat = append(lat, d)
					if code != 200 {
						failed = append(failed, fmt.Sprintf("%d %.200s", code, body))
					}
					mu.Unlock()
				}
			}()
		}
		var dash []time.Duration
		done := make(chan struct{})
		go func() {
			defer close(done)
			for time.Since(start) < over+5*time.Second {
				req, _ := http.NewRequest("GET", srv.URL+"/api/class/dashboard", nil)
				req.Header.Set("Authorization", "Bearer "+teacher)
				t0 := time.Now()
				res, err := client.Do(req)
				if err == nil {
					io.Copy(io.Discard, res.Body)
					res.Body.Close()
				}
				dash = append(dash, time.Since(t0))
				time.Sleep(2 * time.Second)
			}
		}()
		wg.Wait()
		<-done
		b.StopTimer()
		if len(failed) > 0 {
			b.Fatalf("%d of %d submissions failed, the first: %s", len(failed), len(lat), failed[0])
		}
		slices.Sort(lat)
		slices.Sort(dash)
		slices.Sort(base)
		q := func(xs []time.Duration, p float64) time.Duration { return xs[min(len(xs)-1, int(p*float64(len(xs))))] }
		b.ReportMetric(float64(q(lat, .5).Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(q(lat, .99).Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(q(base, .5).Microseconds())/1000, "grade-p50-ms")
		b.ReportMetric(float64(q(lat, .5))/float64(q(base, .5)), "p50/grade")
		b.ReportMetric(float64(q(dash, .5).Microseconds())/1000, "dash-p50-ms")
		b.ReportMetric(float64(dash[len(dash)-1].Microseconds())/1000, "dash-max-ms")
		b.Logf("%d submissions by %d students over %v: p50 %v, p99 %v, max %v (POST /api/grade of the same answers, unstored, one at a time: p50 %v); dashboard (%d reads): median %v, max %v, the last over %d answers",
			len(lat), students, over, q(lat, .5), q(lat, .99), lat[len(lat)-1], q(base, .5), len(dash), q(dash, .5), dash[len(dash)-1], len(lat))
		srv.Close()
		db.Close()
	}
}
