//go:build js && wasm

package wasm

import (
	"strconv"
	"strings"
	"testing"
)

// A panic's stack names every frame's file and line: the engines' function
// names are blanked, and these are what finds the code (wasm/build's
// TestBlankNamesOnAGoProgram prints one from a blanked module).
func TestStackGivesFilesAndLines(t *testing.T) {
	s, line := stack(), 15 // this line
	if want := "bridge_test.go:" + strconv.Itoa(line); !strings.Contains(s, want) {
		t.Errorf("the stack does not name %s:\n%s", want, s)
	}
	if !strings.Contains(s, "TestStackGivesFilesAndLines") || !strings.Contains(s, "testing.tRunner") {
		t.Errorf("the stack does not name its functions where they are kept:\n%s", s)
	}
}
