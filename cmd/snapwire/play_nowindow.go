//go:build !play

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/snapwire/snapwire/internal/play"
)

// windowBuilt: this binary was built without the window (no build tag
// "play"), so that "go build ./..." and "go test ./..." need nothing but
// Go; the window needs cgo and the X11/GL headers on Linux.
const windowBuilt = false

// errNoWindow says how to get the window.
var errNoWindow = errors.New(`this snapwire was built without the window (build tag "play").
Build it with: go build -tags play ./cmd/snapwire   (or run: go run -tags play ./cmd/snapwire play)
Ebitengine needs cgo and, on Linux, the X11/GL headers (Debian: apt-get install gcc pkg-config
libx11-dev libxrandr-dev libxcursor-dev libxinerama-dev libxi-dev libgl1-mesa-dev libxxf86vm-dev
libasound2-dev). "snapwire play --headless --autoplay --duration 20s" plays without a window`)

func playWindow(*play.Session, playOptions) error { return errNoWindow }

// reexecEnv marks a re-run, so a build without the window never loops.
const reexecEnv = "SNAPWIRE_PLAY_REEXEC"

// reexecPlay re-runs "snapwire play ARGS" as "go run -tags play" when the
// working directory is inside snapwire's source tree and the go command
// is there (the case of "go run ./cmd/snapwire play"), in the same working
// directory so that relative paths keep their meaning. Otherwise it says
// how to build the window.
func reexecPlay(args []string, stdout io.Writer) error {
	root, ok := sourceRoot()
	goBin, err := exec.LookPath("go")
	if !ok || err != nil || os.Getenv(reexecEnv) != "" {
		return errNoWindow
	}
	fmt.Fprintln(os.Stderr, "snapwire play: building the window: go run -tags play ./cmd/snapwire play")
	cmd := exec.Command(goBin, append([]string{"run", "-tags", "play", filepath.Join(root, "cmd", "snapwire"), "play"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, stdout, os.Stderr
	cmd.Env = append(os.Environ(), reexecEnv+"=1")
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go run -tags play: %w (a failed build needs cgo and the X11/GL headers: %v)", err, "snapwire play -h")
	}
	return nil
}

// sourceRoot finds snapwire's module root at or above the working
// directory.
func sourceRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for range 64 {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil {
			line, _, _ := bytes.Cut(b, []byte("\n"))
			if bytes.Equal(bytes.TrimSpace(line), []byte("module github.com/snapwire/snapwire")) {
				if _, err := os.Stat(filepath.Join(dir, "cmd", "snapwire", "play_window.go")); err == nil {
					return dir, true
				}
			}
			return "", false
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", false
}
