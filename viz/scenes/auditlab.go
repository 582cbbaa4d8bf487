package scenes

import (
	"math"
	"slices"
	"strconv"

	"github.com/uldplab/uldp/core/format"
	"github.com/uldplab/uldp/viz/figure"

	"github.com/uldplab/uldp/core/cancel"

	"github.com/uldplab/uldp/core/audit"
	"github.com/uldplab/uldp/core/dataset"
	"github.com/uldplab/uldp/core/loss"
	"github.com/uldplab/uldp/core/mech"
	"github.com/uldplab/uldp/core/optim"
	"github.com/uldplab/uldp/core/privacy"
	"github.com/uldplab/uldp/viz"
)

// Mechanisms the audit lab can audit.
const (
	labDel   = "deloutputpert"
	labAT    = "abovethreshold"
	labGauss = "gaussian"
	labORME  = "orme"
	labGate  = "orme-gate"
	labSGD   = "dp-sgd"
	labRSGD  = "robust-sgd"
)

// labMechs lists the mechanisms in menu order.
var labMechs = []string{labDel, labAT, labGauss, labORME, labGate, labSGD, labRSGD}

// sampled says whether m's answer has no closed form, so the lab draws its
// sampled answers instead of an exact profile.
func sampled(m string) bool { return m == labSGD || m == labRSGD }

// labRSGDParams are robust SGD's (Ghazi et al. 2025) for the pair: one
// phase of T = 2 steps of B = 400 users in file order, ε = 8, δ = 10⁻⁵,
// r = 1 and η = 1/6B, the largest step its proof allows (6βηB ≤ 1), on
// the squared loss — or Huber's, whose gradients the huber-edge pair needs.
// A smaller batch is not certified: with B = 100 a batch with no 2B/3 in
// any r-box passes the test with probability 0.0016, not δ's share.
func labRSGDParams(pair string) optim.RobustSGDParams {
	p := optim.RobustSGDParams{Eps: 8, Delta: 1e-5, Loss: loss.Squared{Mu: 1}, Domain: 1e5, Batch: rsgdBatch, Radius: 1,
		Eta: rsgdEta, Order: optim.Given, Mode: privacy.Sound, Theta0: []float64{0}}
	if pair == "huber-edge" {
		p.Loss = loss.Huber{H: 1}
	}
	return p
}

// rsgdBatch is B in the robust SGD pairs, which hold 2B users, and
// rsgdEta their step.
const (
	rsgdBatch = 400
	rsgdEta   = 1.0 / (6 * rsgdBatch)
)

// huberEdge is the pair on which the indicator kernel is caught (the
// robust SGD audit's tests build the same pair in two dimensions). Step
// 1's users sit at the start x₀ = 0; in B one of them is 10⁴ away, whose
// Huber gradient saturates at 1 and moves x₁ by −η/B. Step 2's users are
// half saturated (at −5, gradient 1) and half at half that move from x
// (gradient ±η/2B): their distances straddle r = 1 by η/2B, so the
// indicator kernel counts every cross pair on A and none on B.
func huberEdge() (a, b []float64) {
	near := -rsgdEta / rsgdBatch / 2
	a = with(with(crowdOf(rsgdBatch, 0), crowdOf(rsgdBatch/2, -5)...), crowdOf(rsgdBatch/2, near)...)
	b = slices.Clone(a)
	b[0] = -1e4
	return a, b
}

// labSGDParams() are user-level DP-SGD's: sound ORME at (8, 0.1) inside 8
// steps among 600 users (the proof needs n > 502), on the squared loss
// without smoothing — what the audit's sampler of whole runs needs.
func labSGDParams() optim.DPSGDParams {
	return optim.DPSGDParams{Eps: 8, Delta: 0.1, Loss: loss.Squared{Mu: 1}, Radius: 50,
		Steps: 8, Eta: 0.5, Tau: 1, Mode: privacy.Sound}
}

// sgdUsers is how many users the DP-SGD pairs hold.
const sgdUsers = 600

// labORMEParams() are ORME's sound constants at (8, 0.1), τ = 1, T = 1: the
// proof covers them from n > 254 users, so the lab's pairs hold 300.
func labORMEParams() mech.ORMEParams {
	return mech.ORMEParams{Eps: 8, Delta: 0.1, Tau: 1, Queries: 1, Mode: privacy.Sound}
}

// The gate's audit: the same constants over T = 8 queries among 300 users.
// Its bars are scores minus the threshold 4n/5.
func labGateParams() mech.ORMEParams {
	return mech.ORMEParams{Eps: 8, Delta: 0.1, Tau: 1, Queries: 8, Mode: privacy.Sound}
}

const (
	gateUsers     = 300
	gateThreshold = 4 * gateUsers / 5
)

// flippingPair is audit.FlippingScores' pair (a crowd of 268), relative to
// the gate's threshold.
func flippingPair() labPair {
	// Constant, valid arguments: FlippingScores cannot fail here.
	a, b, _ := audit.FlippingScores(gateUsers, 268, labGateParams().Queries, labGateParams().Tau)
	for i := range a {
		a[i] -= gateThreshold
		b[i] -= gateThreshold
	}
	return labPair{"flipping", audit.ORMEHalfScoreNoise, a, b}
}

// crowdOf returns n users at one value.
func crowdOf(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// gaussDelta is the Gaussian mechanism's claimed δ in the lab; its query
// has ℓ₂ sensitivity 1.
const gaussDelta = 1e-5

// NoMutant is the mutant choice for the real mechanism.
const NoMutant = "none"

// AuditLab is lesson 11: pick a mechanism and a neighbouring pair (drag to
// make one), see its exact privacy profile against its promise, run a Monte
// Carlo audit in the background, and switch on broken variants to watch the
// audit catch them.
type AuditLab struct {
	mech, pair, mutant string
	// DelOutputPert: users' values; b differs from a in one user.
	a, b []float64
	del  mech.DelParams
	// AboveThreshold: query values; each b query within the sensitivity of a's.
	qa, qb []float64
	at     mech.ATParams
	// The Gaussian mechanism's claimed ε (its answers are a[0] and b[0]).
	gaussEps float64
	// DP-SGD's runs on a and b, ready to sample.
	sgd [2]audit.DPSGDRuns
	// Robust SGD's runs on a and b, and its test's exact law on the pair.
	rsgd  [2]audit.RSGDRuns
	rtest audit.RSGDTest

	points []audit.Point
	err    error
	labMC

	ax   figure.Plot       // AboveThreshold's bars
	line figure.NumberLine // DelOutputPert's users
	list viz.List
	drag int     // ids: 1… row A, lensID+1… row B
	grab float64 // value offset (bars) or pixel offset (users) of the grab
}

// labPair is a preset neighbouring pair: each is the pair on which one
// broken variant is caught, so a student can see the catch before hunting
// for pairs by dragging.
type labPair struct {
	name, catches string
	a, b          []float64
}

func labPairs() map[string][]labPair {
	hA, hB := huberEdge()
	return map[string][]labPair{
		labDel: {
			{"far-outlier", "no-stability", with(inliers, 1000), with(inliers, 0)},
			{"three-vs-four-outliers", "r1-fixed", with(inliers[:10], 0.04, 10, 10, 10), with(inliers[:10], 10, 10, 10, 10)},
		},
		labAT: {
			{"ones-vs-zeros", "no-threshold-noise", []float64{1, 1, 1, 1, 1, 1, 1, 1}, []float64{0, 0, 0, 0, 0, 0, 0, 0}},
		},
		labORME: {
			{"far-user", audit.ORMEKeepAll, crowdOf(300, 0), with(crowdOf(299, 0), 1e4)},
			{"two-crowds", audit.ORMENoGate, with(crowdOf(150, 0), crowdOf(150, 100)...), with(crowdOf(149, 0), crowdOf(151, 100)...)},
		},
		labGauss: {
			{"answers-one-apart", audit.GaussianClassical, []float64{0}, []float64{1}},
		},
		labGate: {flippingPair()},
		labSGD: {
			{"far-user", audit.ORMEKeepAll, crowdOf(sgdUsers, 0), with(crowdOf(sgdUsers-1, 0), 1e4)},
			{"two-crowds", audit.ORMENoGate, with(crowdOf(sgdUsers/2, 0), crowdOf(sgdUsers/2, 100)...),
				with(crowdOf(sgdUsers/2-1, 0), crowdOf(sgdUsers/2+1, 100)...)},
		},
		labRSGD: {
			// The last user, 10⁶ away: the plain mean moves the answer by
			// ηz/2B ≈ 260σ; the clipped one by at most ηr/2.
			{"far-user", audit.RSGDNoClip, crowdOf(2*rsgdBatch, 0), with(crowdOf(2*rsgdBatch-1, 0), 1e6)},
			{"huber-edge", audit.RSGDIndicator, hA, hB},
		},
	}
}

// pairHelp says which broken variant each preset pair of m catches.
func pairHelp(m string) map[string]string {
	out := map[string]string{}
	for _, p := range labPairs()[m] {
		out[p.name] = "a preset pair that catches “" + p.catches + "”"
	}
	return out
}

// mutantHelp says what each broken variant breaks.
func mutantHelp() map[string]string {
	out := map[string]string{
		NoMutant:                 "the real mechanism",
		"no-threshold-noise":     "the threshold gets no noise",
		audit.GaussianClassical:  "the textbook σ used beyond its proof (ε ≥ 1)",
		audit.ORMENoGate:         "ORME without its gate",
		audit.ORMEHalfScoreNoise: "the score's noise at half the sound scale",
		audit.ORMEKeepAll:        "everyone kept instead of the ramp",
		audit.RSGDPaperNoise:     "the test's noise as printed, Lap(4/ε) and Lap(8/ε), for scores of sensitivity 2",
		audit.RSGDNoClip:         "the plain batch mean, not clipped to the median ± r",
		audit.RSGDTrimTooLittle:  "the trimmed mean trims one user fewer than B/3 at each end",
		audit.RSGDIndicator:      "the score counts pairs within r (an indicator) instead of exp(−‖·‖∞/r)",
		"no-score-noise":         "the gate compares the score with 4C/5 without its Laplace noise",
		"counts-at-tau":          "the ramp counts neighbours within τ instead of 2τ",
		"weak-gate":              "the gate's noise is Lap(2/ε) instead of Lap(20/ε)",
	}
	for _, name := range audit.DelMutantNames() {
		if m, err := audit.DelMutantByName(name); err == nil {
			out[name] = m.Broken
		}
	}
	return out
}

func pairNames(m string) []string {
	var out []string
	for _, p := range labPairs()[m] {
		out = append(out, p.name)
	}
	return out
}

// NewAuditLab starts on DelOutputPert at spec preset P1 with a far outlier
// against an inlier.
func NewAuditLab() *AuditLab {
	s := &AuditLab{
		del:   mech.DelParams{Eps: 8, Delta: 0.1, Sens: 0.1},
		at:    mech.ATParams{Eps: 1, Threshold: 0},
		labMC: labMC{runs: 100_000},
		// The setting for the classical-σ mutant.
		gaussEps: 3,
	}
	// The audit's arrays are reserved as the lesson opens, not in the
	// middle of its first audit (see audit.MCMemory); outputs have at most
	// two coordinates (DP-SGD's θ).
	s.mem.Reserve(s.runs, 2)
	s.load(labDel, labPairs()[labDel][0])
	s.recompute()
	return s
}

// load switches to a mechanism and one of its preset pairs, with the real
// mechanism under audit.
func (s *AuditLab) load(m string, p labPair) {
	s.mech, s.pair, s.mutant = m, p.name, NoMutant
	a, b := append([]float64(nil), p.a...), append([]float64(nil), p.b...)
	if queryMech(m) {
		s.qa, s.qb = a, b
	} else {
		s.a, s.b = a, b
	}
}

// Info names the scene.
func (s *AuditLab) Info() viz.Info { return auditInfo() }

// auditInfo names the audit lab, whichever of its scenes shows it.
func auditInfo() viz.Info {
	return viz.Info{Name: "audit", Title: "Audit lab",
		Summary: "Does the code keep its promise? Exact δ(ε) and Monte Carlo audits of a neighbouring pair, with broken variants to catch."}
}

func (s *AuditLab) guarantee() privacy.Guarantee {
	switch s.mech {
	case labAT:
		return privacy.Guarantee{Eps: s.at.Eps, Mode: privacy.Paper}
	case labGauss:
		return privacy.Guarantee{Eps: s.gaussEps, Delta: gaussDelta, Mode: privacy.Paper}
	case labGate:
		return audit.GateGuarantee(labGateParams())
	case labRSGD:
		return labRSGDParams(s.pair).Guarantee(len(s.a), 1, 1, false)
	case labSGD:
		cal, err := labSGDParams().ORME(max(len(s.a), 2), 1, 1).Calibrate(max(len(s.a), 2))
		if err != nil {
			return privacy.Guarantee{Eps: labSGDParams().Eps, Delta: labSGDParams().Delta, Mode: privacy.Sound, Note: err.Error()}
		}
		return labSGDParams().Guarantee(cal)
	case labORME:
		// Sound constants with their proof's user requirement (met at 300).
		cal, err := labORMEParams().Calibrate(max(len(s.a), 2))
		if err != nil {
			return privacy.Guarantee{Eps: labORMEParams().Eps, Delta: labORMEParams().Delta, Mode: privacy.Sound, Note: err.Error()}
		}
		return cal.Guarantee()
	}
	return privacy.Guarantee{Eps: s.del.Eps, Delta: s.del.Delta, Mode: privacy.Paper}
}

func mutantsOf(m string) []string {
	switch m {
	case labAT:
		return []string{NoMutant, "no-threshold-noise"}
	case labGauss:
		return []string{NoMutant, audit.GaussianClassical}
	case labORME, labGate, labSGD:
		return append([]string{NoMutant}, audit.ORMEMutantNames()...)
	case labRSGD:
		return append([]string{NoMutant}, audit.RSGDMutantNames()...)
	}
	return append([]string{NoMutant}, audit.DelMutantNames()...)
}

// recompute redraws the exact profile after any change; a running or
// finished Monte Carlo audit no longer matches the pair and is dropped.
func (s *AuditLab) recompute() {
	s.drop()
	s.err = nil
	g := s.guarantee()
	eps := make([]float64, 81)
	for i := range eps {
		eps[i] = 2 * g.Eps * float64(i) / 80
	}
	if s.mech == labAT {
		law := audit.ATExact
		if s.mutant != NoMutant {
			law = audit.ATNoThresholdNoise
		}
		s.points = audit.ATCurve(law(s.at, s.qa), law(s.at, s.qb), g, eps)
		return
	}
	if s.mech == labGate {
		la, lb, err := audit.ORMEGatePair(labGateParams(), gateUsers, gateScores(s.qa), gateScores(s.qb), s.variant())
		if err != nil {
			s.err, s.points = err, nil
			return
		}
		s.points = audit.ATCurve(la, lb, g, eps)
		return
	}
	if s.mech == labSGD {
		// No closed form: only the gate's halting probability is exact.
		s.points = nil
		for i, vals := range [][]float64{s.a, s.b} {
			if s.sgd[i], s.err = audit.SampleDPSGD(labSGDParams(), valuesData(vals), s.variant()); s.err != nil {
				return
			}
		}
		return
	}
	if s.mech == labRSGD {
		// The test's halting law is exact; the answer is sampled.
		s.points = nil
		p, err := audit.RSGDMutant(labRSGDParams(s.pair), s.variant())
		if err != nil {
			s.err = err
			return
		}
		a, b := valuesData(s.a), valuesData(s.b)
		if s.rtest, s.err = audit.RSGDTestLaw(p, a, b, 1); s.err != nil {
			return
		}
		for i, d := range []*dataset.Dataset{a, b} {
			if s.rsgd[i], s.err = audit.SampleRSGD(p, d); s.err != nil {
				return
			}
		}
		return
	}
	if s.mech == labORME {
		la, lb, err := s.ormeLaws()
		if err == nil {
			var pair audit.ORMEPair
			if pair, err = audit.NewORMEPair(la, lb); err == nil {
				s.points = pair.Curve(g, eps)
				return
			}
		}
		s.err, s.points = err, nil
		return
	}
	la, lb, err := s.laws()
	if err != nil {
		s.err, s.points = err, nil
		return
	}
	s.points = audit.Curve(la, lb, g, eps)
}

// laws returns DelOutputPert's or the Gaussian mechanism's output laws on
// the pair, as the variant under audit has them.
func (s *AuditLab) laws() (mech.DelLaw, mech.DelLaw, error) {
	if s.mech == labGauss {
		rule := audit.GaussianAnalytic
		if s.mutant != NoMutant {
			rule = s.mutant
		}
		sigma, err := audit.GaussianMechSigma(rule, s.gaussEps, gaussDelta, 1)
		if err != nil {
			return mech.DelLaw{}, mech.DelLaw{}, err
		}
		return audit.GaussianLaw(s.a[:1], sigma), audit.GaussianLaw(s.b[:1], sigma), nil
	}
	la, err := mech.DelOutputPertLaw(cancel.Never, s.del, valuesData(s.a), nil)
	if err != nil {
		return la, la, err
	}
	lb, err := mech.DelOutputPertLaw(cancel.Never, s.del, valuesData(s.b), nil)
	if err != nil {
		return la, lb, err
	}
	if s.mutant != NoMutant {
		m, err := audit.DelMutantByName(s.mutant)
		if err != nil {
			return la, lb, err
		}
		la, lb = m.Apply(la), m.Apply(lb)
	}
	return la, lb, nil
}

// variant is the ORME variant under audit ("" for the real mechanism).
func (s *AuditLab) variant() string {
	if s.mutant == NoMutant {
		return ""
	}
	return s.mutant
}

// gateScores turns the bars (scores minus the threshold) into scores.
func gateScores(rel []float64) []float64 {
	out := make([]float64, len(rel))
	for i, v := range rel {
		out[i] = v + gateThreshold
	}
	return out
}

// queryMech says whether m's pair is two query vectors drawn as bars.
func queryMech(m string) bool { return m == labAT || m == labGate }

// querySens is how far a B bar may sit from its A bar.
func (s *AuditLab) querySens() float64 {
	if s.mech == labGate {
		return 2 * float64(gateUsers-1) / gateUsers
	}
	return 1
}

// ormeLaws are ORME's exact one-query laws on the pair.
func (s *AuditLab) ormeLaws() (audit.ORMELaw, audit.ORMELaw, error) {
	la, err := audit.ORMEExactLaw(labORMEParams(), s.a, s.variant())
	if err != nil {
		return la, la, err
	}
	lb, err := audit.ORMEExactLaw(labORMEParams(), s.b, s.variant())
	return la, lb, err
}

func valuesData(values []float64) *dataset.Dataset {
	d := &dataset.Dataset{Dim: 1, Users: make([]dataset.User, len(values))}
	for i, v := range values {
		d.Users[i] = dataset.User{ID: strconv.Itoa(i + 1), Points: []float64{v}}
	}
	return d
}

// startMC prepares the Monte Carlo audit; Tick advances it.
func (s *AuditLab) startMC() error {
	var a, b audit.Sampler
	switch s.mech {
	case labAT:
		a, b = audit.ATSampler(s.at, s.qa, s.mutant != NoMutant), audit.ATSampler(s.at, s.qb, s.mutant != NoMutant)
	case labORME:
		la, lb, err := s.ormeLaws()
		if err != nil {
			return err
		}
		a, b = la.Sampler(), lb.Sampler()
	case labSGD:
		a, b = s.sgd[0].Sample, s.sgd[1].Sample
	case labRSGD:
		a, b = s.rsgd[0].Sample, s.rsgd[1].Sample
	case labGate:
		var err error
		if a, err = audit.ORMEGateSampler(labGateParams(), gateUsers, gateScores(s.qa), s.variant()); err != nil {
			return err
		}
		if b, err = audit.ORMEGateSampler(labGateParams(), gateUsers, gateScores(s.qb), s.variant()); err != nil {
			return err
		}
	default:
		la, lb, err := s.laws()
		if err != nil {
			return err
		}
		a, b = audit.LawSampler(la, s.del.Eps/2, 1), audit.LawSampler(lb, s.del.Eps/2, 1)
	}
	return s.start(a, b, s.guarantee())
}

// Tick samples the Monte Carlo audit under way, a slice per frame.
func (s *AuditLab) Tick(float64) bool { return s.tick() }

// form binds the scene's inputs.
func (s *AuditLab) form() viz.Form {
	f := viz.Form{
		viz.Choose(&s.mech, viz.Control{Name: "mech", Label: "mechanism", Choices: allLabMechs(), ChoiceHelp: labMechHelp()}),
		viz.Choose(&s.pair, viz.Control{Name: "pair", Label: "neighbouring pair", Choices: pairNames(s.mech),
			Help: "drag the users or queries to make your own pair", ChoiceHelp: pairHelp(s.mech)}),
		viz.Choose(&s.mutant, viz.Control{Name: "mutant", Label: "broken variant", Choices: mutantsOf(s.mech),
			Help: "a bug the audit must catch on some pair", ChoiceHelp: mutantHelp()}),
	}
	f = append(f, s.fields(s.startMC)...)
	if s.mech == labGauss {
		eps := viz.Float(&s.gaussEps, viz.Control{Name: "eps", Label: "claimed ε", Kind: viz.Slider, Min: 0.1, Max: 20, Log: true,
			Help: "δ = 10⁻⁵; the classical σ's proof needs ε < 1"})
		f = slices.Insert(f, 1, eps)
	}
	return f
}

// Controls declares the scene's inputs.
func (s *AuditLab) Controls() []viz.Control { return s.form().Controls() }

// Set changes one control.
func (s *AuditLab) Set(name, value string) error {
	if name == "mech" && (slices.Contains(phasedMechs, value) || slices.Contains(semiMechs, value)) {
		return elsewhere(value)
	}
	mutant := s.mutant
	if err := s.form().Set(name, value); err != nil || name == "monte-carlo" {
		return err
	}
	switch name {
	case "mech":
		s.load(s.mech, labPairs()[s.mech][0])
	case "pair":
		for _, p := range labPairs()[s.mech] {
			if p.name == s.pair {
				s.load(s.mech, p)
				s.mutant = mutant // a new pair keeps the variant under test
			}
		}
	}
	s.recompute()
	return nil
}

// verdictAt is the exact verdict at the claimed ε.
func (s *AuditLab) verdictAt() (audit.Point, bool) { return pointAt(s.points, s.guarantee().Eps) }

// Readouts lists the verdicts.
func (s *AuditLab) Readouts() []viz.Readout {
	if s.err != nil {
		return viz.FailedReadouts("cannot audit", s.err)
	}
	g := s.guarantee()
	var r []viz.Readout
	switch s.mech {
	case labSGD:
		r = append(r, viz.Readout{Name: "halt", Label: "Pr[the gate halts a run]", Value: math.Max(s.sgd[0].Halt, s.sgd[1].Halt),
			Text: format.Sprintf("%s on A, %s on B (exact); a halted run answers θ₀", audit.FormatProbability(s.sgd[0].Halt), audit.FormatProbability(s.sgd[1].Halt))})
	case labRSGD:
		r = append(r, viz.Readout{Name: "halt", Label: "Pr[the test halts a run]", Value: math.Max(s.rsgd[0].Halt, s.rsgd[1].Halt),
			Text: format.Sprintf("%s on A, %s on B (exact); a halted run answers x₀ plus the noise", audit.FormatProbability(s.rsgd[0].Halt), audit.FormatProbability(s.rsgd[1].Halt))},
			viz.Readout{Name: "test", Label: "the test's privacy loss (exact)", Value: math.Max(s.rtest.Loss, s.rtest.WorstLoss), Warn: s.rtest.Violated(),
				Text: rsgdTestText(s.rtest)})
	}
	if p, ok := s.verdictAt(); ok {
		r = append(r, viz.Readout{Name: "exact", Label: format.Sprintf("exact δ at ε = %g", g.Eps), Value: math.Max(p.DeltaAB, p.DeltaBA),
			Text: format.Sprintf("%.3g and %.3g vs promised %g: %s", p.DeltaAB, p.DeltaBA, g.Delta, p.Verdict), Warn: p.Verdict == audit.Violation})
	}
	if mc, ok := s.readout(g.Eps); ok {
		r = append(r, mc)
	}
	return r
}

// Guarantee is the audited mechanism's claim.
func (s *AuditLab) Guarantee() privacy.Guarantee { return underAudit(s.guarantee(), s.mutant) }

// underAudit is the claim g of a mechanism as the lab shows it with the
// broken variant mutant under audit: the real mechanism's, which the
// variant does not inherit.
func underAudit(g privacy.Guarantee, mutant string) privacy.Guarantee {
	if mutant != NoMutant {
		g.Note = "the real mechanism's claim, which the broken variant under audit does not inherit"
		g.Preconditions = append(g.Preconditions, privacy.Fact("the code under audit is the mechanism the proof is about (it runs the broken variant “"+mutant+"”)", false))
	}
	return g
}

// rsgdTestText says what the test's halting step loses on the pair and at
// the proof's worst neighbour, against the ε/2 it may lose.
func rsgdTestText(t audit.RSGDTest) string {
	verdict := audit.Within
	if t.Violated() {
		verdict = audit.Violation
	}
	if t.Step == 0 {
		return format.Sprintf("the changed user is in no step: the runs are alike (may lose ε/2 = %g): %s", t.Budget, verdict)
	}
	return format.Sprintf("%.3g on this pair, %.3g against the proof's worst neighbour (the scores from step %d moved by 2), may lose ε/2 = %g: %s",
		t.Loss, t.WorstLoss, t.Step, t.Budget, verdict)
}
