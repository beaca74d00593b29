package main

// "snapwire play": the reference game in a window for a person to play,
// with a net graph and live knobs; everything but the window is
// internal/play's. The window needs Ebitengine, hence cgo and the X11/GL
// headers on Linux, and a program that links Ebitengine stops at start-up
// without a display; so this binary never links it. It runs the window
// binary, snapwire-play (build tag "play"), with the same arguments: the
// one next to this executable, else one on PATH, else, inside snapwire's
// source tree, "go run -tags play ./cmd/snapwire-play". --headless plays
// without a window, in this process.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/snapwire/snapwire/cmd/internal/play"
)

func init() {
	register(command{
		name:    "play",
		summary: "play the arena in a window (snapwire-play), with a net graph and live network knobs",
		run:     runPlay,
	})
}

// errNoWindow says how to get the window.
var errNoWindow = errors.New(`the window is the separate program snapwire-play, not found next to this one, on PATH or in a source tree.
Build it with: go build -tags play -o "$(dirname "$(command -v snapwire)")" ./cmd/snapwire-play
Ebitengine needs cgo and, on Linux, the X11/GL headers (Debian: apt-get install gcc pkg-config libx11-dev
libxrandr-dev libxcursor-dev libxinerama-dev libxi-dev libgl1-mesa-dev libxxf86vm-dev libasound2-dev).
"snapwire play --headless --autoplay --duration 20s" plays without a window`)

// windowEnv names the window program explicitly (tests, packagers).
const windowEnv = "SNAPWIRE_PLAY_WINDOW"

func runPlay(args []string, stdout io.Writer) error {
	a, err := play.ParseArgs(args, os.Stderr)
	if err != nil {
		return err
	}
	if a.Headless {
		return play.Main(args, stdout, os.Stderr, nil)
	}
	cmd, err := windowCommand(args)
	if err != nil {
		return err
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", filepath.Base(cmd.Path), err)
	}
	return nil
}

// windowCommand finds the window program: $SNAPWIRE_PLAY_WINDOW,
// snapwire-play next to this executable or on PATH, or "go run -tags play"
// of its source when the working directory is in snapwire's source tree
// (the case of "go run ./cmd/snapwire play").
func windowCommand(args []string) (*exec.Cmd, error) {
	if p := os.Getenv(windowEnv); p != "" {
		return exec.Command(p, args...), nil
	}
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), "snapwire-play")
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return exec.Command(p, args...), nil
		}
	}
	if p, err := exec.LookPath("snapwire-play"); err == nil {
		return exec.Command(p, args...), nil
	}
	root, ok := sourceRoot()
	goBin, err := exec.LookPath("go")
	if !ok || err != nil {
		return nil, errNoWindow
	}
	fmt.Fprintln(os.Stderr, "snapwire play: building the window: go run -tags play ./cmd/snapwire-play (cgo, X11/GL headers)")
	return exec.Command(goBin, append([]string{"run", "-tags", "play", filepath.Join(root, "cmd", "snapwire-play")}, args...)...), nil
}

// sourceRoot finds snapwire's module root at or above the working
// directory.
func sourceRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for range 64 {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil {
			line, _, _ := bytes.Cut(b, []byte("\n"))
			if !bytes.Equal(bytes.TrimSpace(line), []byte("module github.com/snapwire/snapwire")) {
				return "", false
			}
			_, err := os.Stat(filepath.Join(dir, "cmd", "snapwire-play", "main.go"))
			return dir, err == nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", false
}
