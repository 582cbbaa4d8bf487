package scenario_test

import (
	"fmt"
	"strings"

	"github.com/uldplab/uldp/core/scenario"
)

func ExampleDecode() {
	_, err := scenario.Decode(strings.NewReader(`{"version": 1,
		"generator": {"kind": "gaussian", "n": 20, "m": 5, "d": 2},
		"mechanism": "deloutputpert", "params": {"eps": 1, "detla": 0.1, "sens": 1}}`))
	fmt.Println(err)
	// Output: params: unknown field "detla" (did you mean "delta"?); known fields are eps, delta, sens, tau, kappa, queries, steps, f, rule, delta_slack, beta, mu, rk, rx, sens_rule, lambda, phases, loss, eta, smoothing, batch, r, domain, stat, trim, order, threshold, huber, theta0, groups, p_exp, q_exp, radius, lipschitz, on_empty, on_short, with_replacement, on_oversize, abort_on_halt
}
