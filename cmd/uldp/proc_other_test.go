//go:build !linux

package main

import "os/exec"

// ownGroup leaves cmd as it is: only Linux ties a child's life to its
// parent's; the tests' cleanups kill what they started.
func ownGroup(*exec.Cmd) {}

// killGroup kills cmd.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
