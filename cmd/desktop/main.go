// Command desktop is ULDP Lab's desktop app: every lesson scene in one
// resizable window, the figure on the left and its controls on the right.
//
//	desktop [-size 1280x800] [-state 'scene=abovethreshold&seed=13'] [-shots DIR] [-log-input]
//	        [-exercises builtin|PACK.json [-handin FILE] [-student NAME]]
//
// Keys: ← → step, Space play/pause, R reset, S new seed, the number row
// 1–9, 0, -, = switches to lessons 1–12 (the panel's list reaches every lesson),
// P saves a screenshot (PNG, plus the view's state) in the -shots directory.
//
// -exercises opens exercise mode: the pack's questions above the lessons'
// controls, each answer graded once committed and written to the hand-in
// file (-handin, uldp-handin.json by default), which is also the progress:
// starting again with the same file resumes. [ and ] page through the pack.
// -log-input prints each input the app acts on to standard output, one line
// each ("key ArrowRight", "down 412 300", "shot DIR/uldp-dp-sgd-3"), for
// scripts that drive the window and for bug reports.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/hajimehoshi/ebiten/v2"

	"github.com/uldplab/uldp/viz"
	"github.com/uldplab/uldp/viz/classroom"
	"github.com/uldplab/uldp/viz/ebitenview"
	"github.com/uldplab/uldp/viz/lessons"
)

func main() {
	size := flag.String("size", "1280x800", "window size in pixels, WIDTHxHEIGHT")
	state := flag.String("state", "", "initial view, as in a lesson link: scene=abovethreshold&seed=13")
	shots := flag.String("shots", ".", "directory for screenshots (key P)")
	logInput := flag.Bool("log-input", false, "print each input the app acts on to standard output")
	pack := flag.String("exercises", "", "exercise mode with this pack: builtin, or a pack's JSON file")
	handin := flag.String("handin", "uldp-handin.json", "with -exercises: the hand-in file, written after each answer; an existing one resumes")
	student := flag.String("student", "", "with -exercises: your name, for the hand-in")
	flag.Parse()
	var w, h int
	if _, err := fmt.Sscanf(*size, "%dx%d", &w, &h); err != nil || w < 480 || h < 360 || w > 8192 || h > 8192 {
		fmt.Fprintf(os.Stderr, "desktop: -size %q: write WIDTHxHEIGHT, at least 480x360 (e.g. 1280x800)\n", *size)
		os.Exit(2)
	}
	if st, err := os.Stat(*shots); err != nil || !st.IsDir() {
		fmt.Fprintf(os.Stderr, "desktop: -shots %q is not a directory\n", *shots)
		os.Exit(2)
	}
	app := newApp()
	if *state != "" {
		if err := app.Restore(*state); err != nil {
			// Like a bad link in the browser: report, keep the good settings.
			fmt.Fprintf(os.Stderr, "desktop: -state: %v\n", err)
		}
	}
	game := ebitenview.New(app)
	game.ShotDir = *shots
	game.Text = lessons.Text
	game.Copy = newApp
	if *logInput {
		game.Log = os.Stdout
	}
	if *pack != "" {
		p, err := classroom.ReadPack(*pack)
		if err != nil {
			fmt.Fprintf(os.Stderr, "desktop: -exercises %v\n", err)
			os.Exit(2)
		}
		s, err := classroom.Resume(p, *handin, *student)
		if err != nil {
			fmt.Fprintf(os.Stderr, "desktop: -handin %v\n", err)
			os.Exit(2)
		}
		right, answered := s.Score()
		fmt.Fprintf(os.Stderr, "exercises: %s, %d right of %d answered; answers are saved in %s\n", p.Title, right, answered, *handin)
		game.Exercises(s)
	}
	ebiten.SetWindowSize(w, h)
	ebiten.SetWindowTitle("ULDP Lab")
	ebiten.SetWindowResizingMode(ebiten.WindowResizingModeEnabled)
	if err := ebiten.RunGame(game); err != nil {
		fmt.Fprintf(os.Stderr, "desktop: %v\n", err)
		os.Exit(1)
	}
}

// newApp returns every lesson, at its defaults, and the lessons' parts.
func newApp() *viz.App {
	app := viz.NewApp(lessons.All()...)
	app.AddParts(lessons.Parts()...)
	return app
}
