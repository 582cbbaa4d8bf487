package semisens

import (
	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/core/trace"
)

// Replay rebuilds a recorded training run's beliefs on the public data
// pub from what the run released — each update's v and ι, and the queries,
// which are gradients at public iterates — and checks every answer the run
// gave. Run on a neighbour's public data (which is the same), it shows the
// transcript is post-processing: no sensitive value enters. after, if not
// nil, sees the beliefs after each update (numbered from 1). It returns
// the number of updates and answers replayed.
func Replay(pub *Public, tr *trace.Trace, p MWUParams, after func(update int, b *Beliefs)) (updates, answers int, err error) {
	b := Uniform(pub.N(), pub.K)
	var pending []UpdateStep
	var answer *AnswerStep
	for _, st := range tr.Steps {
		switch v := st.Data.(type) {
		case UpdateStep:
			pending = append(pending, v)
		case AnswerStep:
			answer = &v
		case DescentStep:
			if answer == nil {
				return updates, answers, format.Errorf("the trace has a descent step without an answer before it")
			}
			q := Logistic{}.Gradient(v.W)
			for _, u := range pending {
				if _, err := MWU(pub, b, q, u.V, u.IotaUsed, p); err != nil {
					return updates, answers, err
				}
				updates++
				if after != nil {
					after(updates, b)
				}
			}
			got := Answer(pub, b, q, nil)
			if d := dist(got, answer.Answer); d != 0 {
				return updates, answers, format.Errorf("query %d: the replay answers %v, the run answered %v", answer.Query, got, answer.Answer)
			}
			answers++
			pending, answer = pending[:0], nil
		}
	}
	return updates, answers, nil
}
