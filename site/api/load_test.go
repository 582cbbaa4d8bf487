package api

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/uldplab/uldp/core/exercise"
	"github.com/uldplab/uldp/viz/classroom"
)

// BenchmarkCheapUnderGrading measures the cheap endpoints (health, the
// built-in pack's sheet, a calibration) while 64 clients keep the grader
// saturated with whole answer sheets, against the same requests on an
// idle server in the same run: the share of the machine kept back from
// grading is what keeps them quick. Reports p50 and p99 in milliseconds,
// idle and loaded, and the gradings answered per second meanwhile.
func BenchmarkCheapUnderGrading(b *testing.B) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
	cheap := []string{"/api/health", "/api/pack", "/api/calibrate?mech=gaussian&eps=1&delta=1e-5&sens=1"}
	get := func(path string) time.Duration {
		t0 := time.Now()
		res, err := client.Get(srv.URL + path)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			b.Fatalf("%s: %d", path, res.StatusCode)
		}
		return time.Since(t0)
	}
	sample := func(n int) []time.Duration {
		out := make([]time.Duration, n)
		for i := range out {
			out[i] = get(cheap[i%len(cheap)])
		}
		slices.Sort(out)
		return out
	}
	ms := func(d []time.Duration, q float64) float64 {
		return float64(d[int(q*float64(len(d)-1))]) / float64(time.Millisecond)
	}
	idle := sample(300)

	// Whole answer sheets, the dearest gradings (every lesson rerun).
	pk, _ := exercise.Builtin()
	key, err := pk.For("").Key(classroom.Lab{})
	if err != nil {
		b.Fatal(err)
	}
	answers, _ := json.Marshal(key)
	body := `{"pack": "builtin", "answers": ` + string(answers) + `}`
	const graders = 64
	var graded atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	started := make(chan struct{}, graders)
	for range graders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for first := true; ; first = false {
				select {
				case <-stop:
					return
				default:
				}
				res, err := client.Post(srv.URL+"/api/grade", "application/json", strings.NewReader(body))
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode == http.StatusOK {
					graded.Add(1)
				}
				if first {
					started <- struct{}{}
				}
			}
		}()
	}
	<-started // the grader is at work
	b.ResetTimer()
	t0, g0 := time.Now(), graded.Load()
	loaded := sample(max(b.N, 100))
	elapsed := time.Since(t0)
	b.StopTimer()
	close(stop)
	wg.Wait()
	b.ReportMetric(ms(idle, 0.5), "idle-p50-ms")
	b.ReportMetric(ms(idle, 0.99), "idle-p99-ms")
	b.ReportMetric(ms(loaded, 0.5), "loaded-p50-ms")
	b.ReportMetric(ms(loaded, 0.99), "loaded-p99-ms")
	b.ReportMetric(float64(graded.Load()-g0)/elapsed.Seconds(), "gradings/s")
}

// BenchmarkKeyedGradings measures one-answer gradings of the kinds graded
// against a key (numeric, predict, choice: the built-in pack's 27) from
// 64 clients at once, with the keys kept and, as the baseline in the same
// run, with them forgotten before every request (every grading runs its
// lesson, as before keys were kept; concurrent clients still share some,
// so the ratio is if anything too small). Meanwhile it samples
// /api/health. Reports gradings per second both ways, their ratio, and
// health's p99 under the kept load.
func BenchmarkKeyedGradings(b *testing.B) {
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}}
	pk, _ := exercise.Builtin()
	key, err := pk.For("").Key(classroom.Lab{}) // computes (and keeps) every key
	if err != nil {
		b.Fatal(err)
	}
	var bodies []string
	for _, e := range pk.Exercises {
		switch e.Kind {
		case exercise.Numeric, exercise.Predict, exercise.Choice:
			a, _ := json.Marshal(key[e.ID])
			bodies = append(bodies, `{"pack": "builtin", "answers": {"`+e.ID+`": `+string(a)+`}}`)
		}
	}
	post := func(body string) bool {
		res, err := client.Post(srv.URL+"/api/grade", "application/json", strings.NewReader(body))
		if err != nil {
			return false
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode == http.StatusOK
	}
	// load keeps 64 clients grading for d (forgetting the keys before
	// each request when forget) and returns gradings per second and
	// health's latencies meanwhile.
	load := func(d time.Duration, forget bool) (float64, []time.Duration) {
		const clients = 64
		var graded atomic.Int64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := c; ; i += clients {
					select {
					case <-stop:
						return
					default:
					}
					if forget {
						classroom.Forget()
					}
					if post(bodies[i%len(bodies)]) {
						graded.Add(1)
					}
				}
			}()
		}
		var health []time.Duration
		t0 := time.Now()
		for time.Since(t0) < d {
			h0 := time.Now()
			res, err := client.Get(srv.URL + "/api/health")
			if err != nil {
				b.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			health = append(health, time.Since(h0))
			time.Sleep(5 * time.Millisecond) // a sampler, not a load
		}
		rate := float64(graded.Load()) / time.Since(t0).Seconds()
		close(stop)
		wg.Wait()
		slices.Sort(health)
		return rate, health
	}
	b.ResetTimer()
	var fresh, keyed float64
	var health []time.Duration
	for range b.N {
		fresh, _ = load(3*time.Second, true)
		_, _ = pk.For("").Key(classroom.Lab{}) // keep them again
		keyed, health = load(3*time.Second, false)
	}
	b.StopTimer()
	b.ReportMetric(fresh, "fresh-gradings/s")
	b.ReportMetric(keyed, "kept-gradings/s")
	b.ReportMetric(keyed/fresh, "ratio")
	b.ReportMetric(float64(health[len(health)*99/100])/float64(time.Millisecond), "health-p99-ms")
}
