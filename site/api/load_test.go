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
	key, err := pk.Key(classroom.Lab{})
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
