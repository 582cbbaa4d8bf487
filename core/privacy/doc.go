// Package privacy turns privacy parameters into noise scales and keeps the
// books: calibration formulas with their validity ranges, composition rules,
// a ledger of spends, and the Guarantee every run reports.
//
// Every calibration returns its derivation as Steps (symbol, formula,
// value), so a front end can show how σ follows from ε, δ and Δ, and says
// whether the formula is proven at the parameters given. Nothing here refuses
// a valid-but-unproven request: a lesson needs to show the classical Gaussian
// formula at ε = 3 and what its real δ is.
package privacy
