package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/rng"
	"github.com/uldplab/uldp/core/runner"
	"github.com/uldplab/uldp/core/scenario"
	"github.com/uldplab/uldp/core/trace"
)

// Limits on a run: small enough that a run answers within seconds on a
// busy machine and its answer stays a few MiB, large enough for every
// lesson's scenario.
const (
	// MaxRunValues bounds a scenario's data: n·m·d coordinates.
	MaxRunValues = 100_000
	// MaxRunSteps bounds the steps a parameter or a theorem chooses:
	// DP-SGD's T, ORME's queries.
	MaxRunSteps = 1_000
	// MaxRunStepUsers bounds steps × users, the run's work and its trace.
	MaxRunStepUsers = 200_000
)

// RunTimeout is how long a run may take, its wait for a slot included (a
// variable for the tests).
var RunTimeout = 10 * time.Second

// runReply is POST /api/run's answer: the result `uldp run --scenario`
// prints, and what its trace holds.
type runReply struct {
	Result runner.Report `json:"result"`
	Trace  *traceSummary `json:"trace"` // null: the mechanism records a trace only when asked
}

// traceSummary counts a trace's steps by kind, in the order the kinds
// first occur, and quotes the last step.
type traceSummary struct {
	Steps int         `json:"steps"`
	Kinds []kindCount `json:"kinds"`
	Last  string      `json:"last"`
}

type kindCount struct {
	Kind  trace.Kind `json:"kind"`
	Count int        `json:"count"`
}

func summarise(tr *trace.Trace) *traceSummary {
	if tr == nil {
		return nil
	}
	s := &traceSummary{Steps: len(tr.Steps), Kinds: []kindCount{}}
	at := map[trace.Kind]int{}
	for _, st := range tr.Steps {
		i, ok := at[st.Kind]
		if !ok {
			i = len(s.Kinds)
			at[st.Kind] = i
			s.Kinds = append(s.Kinds, kindCount{Kind: st.Kind})
		}
		s.Kinds[i].Count++
	}
	if len(tr.Steps) > 0 {
		s.Last = tr.Steps[len(tr.Steps)-1].Text
	}
	return s
}

// run answers POST /api/run: a scenario file's JSON, run as `uldp run
// --scenario` runs it.
func (h *handler) run(w http.ResponseWriter, r *http.Request) {
	b, ok := body(w, r)
	if !ok {
		return
	}
	s, err := scenario.Decode(bytes.NewReader(b))
	if err != nil {
		fail(w, http.StatusBadRequest, "scenario: "+err.Error())
		return
	}
	// A generator's size is checked before it allocates anything.
	if g := s.Generator; g != nil {
		if err := values(g.N, g.M, g.D); err != nil {
			fail(w, http.StatusUnprocessableEntity, err.Error())
			return
		}
	}
	ds, err := s.Build()
	if err != nil {
		fail(w, http.StatusBadRequest, "scenario: "+err.Error())
		return
	}
	m, _ := ds.M()
	if err := values(ds.N(), m, ds.Dim); err != nil {
		fail(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	cfg := runner.FromScenario(s)
	job, err := cfg.Job()
	if err != nil {
		fail(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	if err := steps(cfg, ds); err != nil {
		fail(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), RunTimeout)
	defer cancel()
	if !h.acquire(ctx, w) {
		return
	}
	defer func() { <-h.slots }()
	rep, tr, err := job.Run(ctx, ds, rng.New(s.Seed), nil)
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		fail(w, http.StatusServiceUnavailable, fmt.Sprintf("the run took longer than %v, the limit per request: use fewer users, items or steps (or `uldp run --scenario` on your own machine)", RunTimeout))
		return
	case errors.Is(err, context.Canceled):
		return // the client left
	case err != nil:
		fail(w, http.StatusUnprocessableEntity, err.Error())
		return
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(runReply{Result: rep, Trace: summarise(tr)}); err != nil {
		// `uldp run` refuses the same result: a value overflowed.
		fail(w, http.StatusUnprocessableEntity, "the run's result holds a value JSON cannot write (±Inf or NaN): "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, out.Bytes())
}

// values refuses data of more than MaxRunValues coordinates.
func values(n, m, d int) error {
	if v := float64(n) * float64(m) * float64(d); v > MaxRunValues {
		return fmt.Errorf("n·m·d = %d users × %d items × %d dimensions = %.0f coordinates: /api/run takes at most %d (the limit n·m·d); use fewer users, items or dimensions, or `uldp run --scenario` on your own machine", n, m, d, v, MaxRunValues)
	}
	return nil
}

// steps refuses a run whose steps pass MaxRunSteps or MaxRunStepUsers.
func steps(cfg *runner.Config, ds *dataset.Dataset) error {
	t, err := cfg.Steps(ds)
	if err != nil {
		return err
	}
	set := "params.steps"
	if cfg.Mech == scenario.MechORME {
		set = "params.queries"
	}
	switch {
	case t > MaxRunSteps:
		return fmt.Errorf("%d steps: /api/run takes at most %d (the limit on steps); set %s to %d or fewer", t, MaxRunSteps, set, MaxRunSteps)
	case t*ds.N() > MaxRunStepUsers:
		return fmt.Errorf("%d steps × %d users = %d: /api/run takes at most %d (the limit on steps × users); give fewer %s or fewer users", t, ds.N(), t*ds.N(), MaxRunStepUsers, set)
	}
	return nil
}
