package stability

// Certify says why no setting of this lesson certifies its run: its ε
// slider keeps κ = 3 on purpose (14 users, a quick exact search), and
// κ = 3 needs ε ≥ 2.35, where the proof's Gaussian step (ε̄ = ε/2 < 1) no
// longer holds.
func (s *Scene) Certify() (why string, settings [][2]string, ok bool) {
	return "No setting of this lesson is certified: its ε goes no lower than 2.4, where κ = 3 keeps the exact search over 12 deletions quick and 14 users enough (a run needs n ≥ 4κ + 2). The proof's Gaussian step needs ε̄ = ε/2 < 1, that is ε < 2, where κ is 4 or more and a run needs 18 users or more. The lesson shows how the stability test decides, not a release to trust.", nil, true
}
