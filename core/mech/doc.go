// Package mech holds the privacy mechanisms of the lessons: each validates
// its parameters, runs from named random streams, records a trace a scene can
// step through, and reports the guarantee it certifies.
package mech
