package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// serveForTest starts `uldp serve` (with flags) on a free loopback port
// and returns its base URL and process, which the test's end kills if it
// still runs.
func serveForTest(t *testing.T, flags ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"serve", "--addr", "127.0.0.1:0"}, flags...)...)
	ownGroup(cmd)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { killGroup(cmd); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(line, "http://")
	if i < 0 {
		t.Fatalf("no URL in %q", line)
	}
	return strings.Fields(line[i:])[0], cmd
}

// rss returns a process's resident memory now and at its peak, in bytes.
func rss(pid int) (now, peak int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1, -1
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			switch f[0] {
			case "VmRSS:":
				now = kb << 10
			case "VmHWM:":
				peak = kb << 10
			}
		}
	}
	return now, peak
}

// The server under a classroom's load: 20,000 requests at concurrency 64
// (one in twenty an engine) without an error, then 400 clients that ask
// for the largest engine and never read, beside which small requests keep
// being answered and the server's memory stays under 300 MB (it used to
// pass 2 GB, a copy of the engine per request). The figures go to the log
// and BENCHMARKS.md.
func TestServeUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	base, cmd := serveForTest(t)
	res, err := http.Get(base + "lessons.json")
	if err != nil {
		t.Fatal(err)
	}
	var menu struct{ Lessons []struct{ Module string } }
	err = json.NewDecoder(res.Body).Decode(&menu)
	res.Body.Close()
	if res.StatusCode != http.StatusOK || err != nil || len(menu.Lessons) == 0 {
		t.Skipf("no lesson engines in this build (%d, %v): make builds them", res.StatusCode, err)
	}
	small := []string{"", "app.js", "style.css", "lessons.json", "wasm_exec.js", "errata.html"}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}, Timeout: time.Minute}
	get := func(p, enc string) error {
		req, _ := http.NewRequest(http.MethodGet, base+p, nil)
		req.Header.Set("Accept-Encoding", enc)
		return fetchOK(client, req)
	}

	const total, workers = 20_000, 64
	load := hammer(total, workers, func(i int) error {
		p := small[i%len(small)]
		if i%20 == 0 {
			p = menu.Lessons[(i/20)%len(menu.Lessons)].Module
		}
		return get(p, []string{"br, gzip", "gzip", ""}[i%3])
	})
	_, peak1 := rss(cmd.Process.Pid)
	t.Logf("%d requests at concurrency %d: %s, peak RSS %.0f MB", total, workers, load, float64(peak1)/(1<<20))
	if load.failed > 0 {
		t.Errorf("%d of %d requests failed, first: %v", load.failed, total, load.first)
	}

	// 400 slow readers: each asks for the largest engine, uncompressed,
	// and reads nothing.
	largest := menu.Lessons[len(menu.Lessons)-1].Module
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range 400 {
		c, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(base, "/"), "http://"))
		if err != nil {
			t.Fatal(err)
		}
		c.(*net.TCPConn).SetReadBuffer(4096)
		fmt.Fprintf(c, "GET /%s HTTP/1.1\r\nHost: x\r\n\r\n", largest)
		conns = append(conns, c)
	}
	var smallFailed int
	for i := range 2000 {
		if err := get(small[i%len(small)], "gzip"); err != nil {
			smallFailed++
		}
	}
	now, peak := rss(cmd.Process.Pid)
	t.Logf("400 slow readers of %s: 2,000 small requests beside them with %d errors; RSS %.0f MB, peak %.0f MB", largest, smallFailed, float64(now)/(1<<20), float64(peak)/(1<<20))
	if smallFailed > 0 {
		t.Errorf("%d small requests failed beside the slow readers", smallFailed)
	}
	if peak > 300<<20 {
		t.Errorf("peak RSS %.0f MB > 300 MB", float64(peak)/(1<<20))
	}
}

// The API under a classroom's load: 5,000 requests at concurrency 32, a mix
// of health, calibrations, the pack's sheet, runs (ORME, DP-SGD) and
// gradings (a choice, a number and a manipulated state, which runs a
// lesson), without an error;
// p99 and peak RSS go to the log and BENCHMARKS.md. The peak must stay
// under 500 MB: runs and gradings go at most one per core, whatever the
// concurrency.
func TestAPIUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("a load test")
	}
	base, cmd := serveForTest(t)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 32}, Timeout: time.Minute}
	type call struct{ method, path, body string }
	mix := []call{
		{"GET", "api/health", ""},
		{"GET", "api/calibrate?mech=analytic-gaussian&eps=1&delta=1e-05&sens=0.01", ""},
		{"GET", "api/calibrate?mech=deloutputpert&eps=1&delta=1e-05&sens=0.1", ""},
		{"GET", "api/pack", ""},
		{"POST", "api/grade", `{"pack": "builtin", "answers": {"user-level-ratio": 1}}`},
		{"POST", "api/grade", `{"pack": "builtin", "answers": {"calibration-user-sigma": 0.05}}`},
		{"POST", "api/run", `{"version": 1, "generator": {"kind": "outliers", "n": 30, "m": 2, "d": 2, "outliers": 3}, "mechanism": "orme", "params": {"eps": 8, "delta": 1e-5, "tau": 0.5, "queries": 3}, "seed": 7}`},
		{"POST", "api/run", `{"version": 1, "generator": {"kind": "gaussian", "n": 100, "m": 4, "d": 2}, "mechanism": "dp-sgd", "params": {"eps": 8, "delta": 1e-5, "rk": 1, "steps": 50}, "seed": 7}`},
		{"POST", "api/grade", `{"pack": "builtin", "answers": {"stability-no-removal": "eps=8&delta=0.1&sens=0.1&values=0%2C0.05%2C-0.05%2C0.1%2C-0.1%2C0.02%2C-0.02%2C0.07%2C-0.07%2C0.03%2C-0.03%2C0.04%2C-0.04%2C0.06&seed=1&lens=false"}}`},
	}
	const total, workers = 5_000, 32
	load := hammer(total, workers, func(i int) error {
		c := mix[i%len(mix)]
		req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		return fetchOK(client, req)
	})
	_, peak := rss(cmd.Process.Pid)
	t.Logf("%d API requests at concurrency %d: %s, peak RSS %.0f MB", total, workers, load, float64(peak)/(1<<20))
	if load.failed > 0 {
		t.Errorf("%d of %d requests failed, first: %v", load.failed, total, load.first)
	}
	if peak > 500<<20 {
		t.Errorf("peak RSS %.0f MB > 500 MB", float64(peak)/(1<<20))
	}
}

// loadRun is what hammer measured.
type loadRun struct {
	failed   int
	first    error
	elapsed  time.Duration
	p50, p99 time.Duration
	total    int
}

func (r loadRun) String() string {
	return fmt.Sprintf("%d errors, %.0f requests/s, p50 %v, p99 %v", r.failed, float64(r.total)/r.elapsed.Seconds(),
		r.p50.Round(time.Microsecond), r.p99.Round(time.Microsecond))
}

// hammer runs do(0) … do(total−1) on workers goroutines and measures each.
func hammer(total, workers int, do func(i int) error) loadRun {
	var next atomic.Int64
	var mu sync.Mutex
	r := loadRun{total: total}
	lat := make([]time.Duration, total)
	var wg sync.WaitGroup
	start := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= total {
					return
				}
				t0 := time.Now()
				err := do(i)
				lat[i] = time.Since(t0)
				if err != nil {
					mu.Lock()
					if r.failed++; r.first == nil {
						r.first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	r.elapsed = time.Since(start)
	slices.Sort(lat)
	r.p50, r.p99 = lat[total/2], lat[total*99/100]
	return r
}

// fetchOK sends req and reads the whole answer, which must be 200 OK.
func fetchOK(client *http.Client, req *http.Request) error {
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s", req.Method, req.URL.Path, res.Status)
	}
	return nil
}

// POST /api/run answers what `uldp run --scenario` prints, for every
// scenario of the tests that runs: one path (the runner package) behind
// both.
func TestRunOverHTTP(t *testing.T) {
	base, _ := serveForTest(t)
	files, _ := filepath.Glob("testdata/*.json")
	ran := 0
	for _, f := range files {
		cli := uldp(t, "run", "--scenario", f)
		b, _ := os.ReadFile(f)
		res, err := http.Post(base+"api/run", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if cli.code != 0 {
			// Refused by both, with the same reason (named as the file's field).
			var e struct{ Error string }
			_ = json.Unmarshal(body, &e)
			if res.StatusCode < 400 || e.Error == "" || !strings.Contains(cli.stderr, strings.TrimPrefix(e.Error, "scenario: ")) {
				t.Errorf("%s: the CLI refuses it (%s) but the API answers %d %s", f, strings.TrimSpace(cli.stderr), res.StatusCode, body)
			}
			continue
		}
		var api struct{ Result json.RawMessage }
		if err := json.Unmarshal(body, &api); res.StatusCode != 200 || err != nil {
			t.Errorf("%s: %d %.300s", f, res.StatusCode, body)
			continue
		}
		var a, c any
		_ = json.Unmarshal(api.Result, &a)
		_ = json.Unmarshal([]byte(cli.stdout), &c)
		if !reflect.DeepEqual(a, c) {
			t.Errorf("%s: the API's result differs from the CLI's\nAPI %.400s\nCLI %.400s", f, api.Result, cli.stdout)
		}
		ran++
	}
	t.Logf("%d of %d scenarios ran through both", ran, len(files))
	if ran < 5 {
		t.Errorf("%d scenarios ran through both, want every runnable one of %d files", ran, len(files))
	}
}
