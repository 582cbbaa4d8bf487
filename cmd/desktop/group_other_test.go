//go:build !linux

package main

import "os/exec"

// ownGroup leaves cmd as it is: the desktop test runs under X on Linux.
func ownGroup(*exec.Cmd) {}

// killGroup ends cmd.
func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
