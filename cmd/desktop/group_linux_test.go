package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// ownGroup starts cmd in a process group of its own that the kernel kills
// with the test binary, however the binary ends (a timeout's panic, a
// SIGKILL): no CPU burner or app outlives a test run.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup ends cmd's process group.
func killGroup(cmd *exec.Cmd) { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }

// A burner started as the desktop test starts them dies when the test
// binary is killed outright: the binary is run again as a helper that
// starts one and waits, and is sent SIGKILL.
func TestBurnerDiesWithTheTest(t *testing.T) {
	if os.Getenv("ULDP_BURNER_HELPER") == "1" {
		burner := exec.Command("sh", "-c", "while :; do :; done")
		ownGroup(burner)
		if err := burner.Start(); err != nil {
			t.Fatal(err)
		}
		fmt.Println(burner.Process.Pid)
		select {} // until killed
	}
	helper := exec.Command(os.Args[0], "-test.run=^TestBurnerDiesWithTheTest$")
	helper.Env = append(os.Environ(), "ULDP_BURNER_HELPER=1")
	ownGroup(helper)
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	defer killGroup(helper)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("the helper printed no burner: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	if err := helper.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	helper.Wait()
	// The kernel delivers the burner's SIGKILL as the helper dies; a busy
	// machine may take a moment to reap it.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
			return
		}
		if state, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(state), ") Z ") {
			return // dead, waiting for init to reap it
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("burner %d still runs 30 s after the test binary was killed", pid)
		}
	}
}
