// Package figure is the lessons' figure kit: every drawing element that two
// or more lessons use, each drawing into a viz.List so that its tests read
// display lists, not pixels.
//
//   - Plot and Box: a panel's place in the frame, its axis and its slots.
//   - NumberLine, DrawValueRow, RowBelow: users' one-dimensional values on
//     a row, on a symmetric log scale when an outlier would squeeze the
//     crowd, stacked so that every user stays grabbable.
//   - Labels: labels that leave out the one that would cover another.
//   - ScoreAxis, KeepRamp, RampColour: outlier removal's gate (the score
//     from 0 to n with 2n/3 and the threshold 4n/5) and its keep ramp, every
//     user placed on it.
//   - CornerInset and ZoomLabel: a magnified view of a crowd too small to
//     see, placed where it covers no user.
//   - Profile and ProfileCaption: an exact privacy profile δ(ε) on a log
//     scale against the promise.
//   - Density: a calibration's noise density.
//   - UserColours, Decade, Clamp, DrawFailure: colours that tell neighbouring
//     users apart, decade tick labels, marks kept on an axis, a failed run's
//     message.
package figure
