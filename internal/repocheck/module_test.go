package repocheck

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// toolsOnly are modules the tools' module (cmd/) needs and a program built
// on the library must not inherit: the window (Ebitengine, which needs cgo
// and X11 on Linux), the browser tests (chromedp), metrics (Prometheus's
// client and client_model) and WebRTC (pion).
var toolsOnly = []string{
	"github.com/hajimehoshi/ebiten",
	"github.com/chromedp/",
	"github.com/prometheus/",
	"github.com/pion/",
}

// TestLibraryModuleDeps builds, as a user would, a program of its own module
// that imports only server, client and game (with go.work off and cgo off)
// and checks that its module graph ("go list -m all") holds none of the
// tools' dependencies. It runs offline: every module it needs is the
// library's own, already in the module cache.
func TestLibraryModuleDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program in a module of its own (-short)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/usessnapwire\n\ngo 1.26.0\n\n"+
		"require github.com/snapwire/snapwire v0.0.0-00010101000000-000000000000\n\n"+
		"replace github.com/snapwire/snapwire => "+root+"\n")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	write("go.sum", string(sum))
	write("main.go", `package main

import (
	"fmt"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/server"
)

func main() {
	var s *server.Server
	var c *client.Client
	var f game.Frame
	fmt.Println(s == nil, c == nil, f)
}
`)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(goBin, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod", "GOPROXY=off", "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	mods := run("list", "-m", "all")
	t.Logf("go list -m all of a program importing server, client and game:\n%s", mods)
	for _, line := range strings.Split(mods, "\n") {
		for _, bad := range toolsOnly {
			if strings.HasPrefix(line, bad) {
				t.Errorf("the library's users inherit %s", line)
			}
		}
	}
	run("build", "-o", filepath.Join(dir, "prog"), ".")
}

// TestLibraryBuildsWithoutCgo builds every package of the library's module
// (go.work off: the tools' module is not part of it) with cgo off, as on a
// machine without a C toolchain or X11 headers.
func TestLibraryBuildsWithoutCgo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the library with cgo off (-short)")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	cmd := exec.Command(goBin, "build", "./...")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0", "GOPROXY=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build ./... of the library: %v\n%s", err, out)
	}
	list := exec.Command(goBin, "list", "-m", "all")
	list.Dir = "../.."
	list.Env = append(os.Environ(), "GOWORK=off", "GOPROXY=off")
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("go list -m all: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		for _, bad := range toolsOnly {
			if strings.HasPrefix(line, bad) {
				t.Errorf("the library's module requires %s", line)
			}
		}
	}
}
