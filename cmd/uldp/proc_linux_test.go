package main

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own that the kernel kills
// with the test binary, however the binary ends (a timeout's panic, a
// SIGKILL): no server outlives a test run.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup ends cmd's process group at once, as a power cut would end
// the server: no deferred call, no shutdown.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
