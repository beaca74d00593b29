// Package oaclient runs the real OpenArena client (Debian's openarena
// package, the ioquake3 1.36 engine) headless for integration tests, the
// way the script that recorded internal/q3/testdata ran it (its README.md,
// "Reproducing"): on a private Xvfb
// display (-displayfd, -nolisten tcp), software GL (Mesa llvmpipe,
// cl_renderer opengl1, 320x240), no sound, in a fresh fs_homepath and
// HOME, with no master servers and networking off (net_enabled 0: demo
// playback needs no socket). Every process is stopped by its process
// group id.
//
// Its job is demo playback: PlayDemo copies a .dm_68/.dm_71 file into the
// home's baseoa/demos and runs "+demo NAME" with timedemo 1 (each
// snapshot rendered once, as fast as the machine goes; ioq3
// CL_DemoCompleted prints "N frames S seconds F fps ...") and nextdemo
// quit (CL_NextDemo runs it when the demo ends, so the client exits by
// itself). The console output is parsed by Parse; an engine error
// (Com_Error ERR_DROP prints "ERROR: ..." and drops back to the menu, the
// client would never exit) stops the client at once.
//
// Tests skip when the client or Xvfb is not installed, and fail instead
// when the environment sets SNAPWIRE_REQUIRE_Q3_CLIENT=1 (CI installs
// openarena and xvfb).
package oaclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Binary is the Debian wrapper of the OpenArena client.
const Binary = "/usr/games/openarena"

// Xvfb is the virtual X server the client draws into.
const Xvfb = "Xvfb"

// RequireEnv makes a missing client or Xvfb a failure instead of a skip.
const RequireEnv = "SNAPWIRE_REQUIRE_Q3_CLIENT"

// Need skips (or, with SNAPWIRE_REQUIRE_Q3_CLIENT=1, fails) the test when
// the client or Xvfb is not installed.
func Need(t testing.TB) {
	t.Helper()
	for _, prog := range []string{Binary, Xvfb} {
		if _, err := exec.LookPath(prog); err != nil {
			msg := fmt.Sprintf("%s not installed (apt-get install openarena xvfb); set %s=1 to make this a failure", prog, RequireEnv)
			if os.Getenv(RequireEnv) == "1" {
				t.Fatal(msg)
			}
			t.Skip(msg)
		}
	}
}

// Result is what the client's console said about a demo playback.
type Result struct {
	// Map is the map the client loaded ("CM_LoadMap( maps/NAME.bsp").
	Map string
	// Frames, Seconds and FPS are the timedemo summary (CL_DemoCompleted):
	// Frames is the number of snapshots the client rendered. Completed
	// says the line was seen: the demo was read to its end marker.
	Frames    int
	Seconds   float64
	FPS       float64
	Completed bool
	// Quit says CL_NextDemo ran "quit" after the demo.
	Quit bool
	// ServerCommands are the reliable server commands the client executed
	// ("serverCommand: N : TEXT" with developer 1), in order.
	ServerCommands []string
	// Errors are the console lines that mean the demo was not played as
	// the engine expects (see errorMarks).
	Errors []string
}

// errorMarks are console texts of ioq3's client parse and demo errors:
// Com_Error's "ERROR:" banner (CL_ParseServerMessage "Illegible server
// message" and "read past end of server message", CL_ParseGamestate "bad
// command byte", ...), CL_ParseSnapshot's delta complaints (a demo must
// start with an uncompressed snapshot), CL_ReadDemoMessage's truncation
// and CL_PlayDemo_f's protocol refusal. None appears in a clean playback.
// Lines of the renderer's GL_ extension lists are not looked at.
var errorMarks = []string{
	"ERROR:", "Illegible", "CL_ParseServerMessage", "CL_ParseGamestate", "CL_ParseSnapshot",
	"CL_ParsePacketEntities", "Bad ", "bad command",
	"Delta from invalid frame", "Delta frame too old", "Delta parseEntitiesNum too old",
	"Demo file was truncated", "not supported for demos", "Not found: demos/",
}

var (
	reFrames = regexp.MustCompile(`^(\d+) frames ([0-9.]+) seconds ([0-9.]+) fps`)
	reMap    = regexp.MustCompile(`^CM_LoadMap\( maps/([^ ]+)\.bsp`)
	reCmd    = regexp.MustCompile(`^serverCommand: \d+ : (.*)$`)
)

// Parse reads a client console log.
func Parse(console string) Result {
	var r Result
	for _, line := range strings.Split(console, "\n") {
		r.line(line)
	}
	return r
}

// line takes one console line (colour codes kept; the lines matched have
// none).
func (r *Result) line(line string) {
	line = strings.TrimRight(line, "\r")
	for _, m := range errorMarks {
		if !strings.HasPrefix(line, "GL_") && strings.Contains(line, m) {
			r.Errors = append(r.Errors, line)
			break
		}
	}
	if m := reFrames.FindStringSubmatch(line); m != nil {
		r.Frames, _ = strconv.Atoi(m[1])
		r.Seconds, _ = strconv.ParseFloat(m[2], 64)
		r.FPS, _ = strconv.ParseFloat(m[3], 64)
		r.Completed = true
	}
	if m := reMap.FindStringSubmatch(line); m != nil {
		r.Map = m[1]
	}
	if m := reCmd.FindStringSubmatch(line); m != nil {
		r.ServerCommands = append(r.ServerCommands, m[1])
	}
	if strings.HasPrefix(line, "CL_NextDemo: quit") {
		r.Quit = true
	}
}

// Err is nil when the demo was loaded, played to its end and the client
// quit, with no error line.
func (r *Result) Err() error {
	switch {
	case len(r.Errors) > 0:
		return fmt.Errorf("oaclient: client reported %d error lines, first %q", len(r.Errors), r.Errors[0])
	case r.Map == "":
		return errors.New("oaclient: the client loaded no map")
	case !r.Completed:
		return errors.New("oaclient: no timedemo summary: the demo did not play to its end")
	case !r.Quit:
		return errors.New("oaclient: the client did not quit after the demo")
	}
	return nil
}

// Options configure a playback.
type Options struct {
	// Protocol68 starts the client with com_protocol 68 and
	// com_legacyprotocol 68: Debian's wrapper says 71, and that client
	// refuses .dm_68 files ("Protocol 68 not supported for demos").
	Protocol68 bool
	// Timeout bounds the whole run (default 90 s).
	Timeout time.Duration
	// Args are more engine arguments ("+set k v").
	Args []string
}

// Playback is one run of the client.
type Playback struct {
	Result
	// Log is the console output (the client's stdout and stderr).
	Log string
	// Elapsed is the wall time from the client's start to its exit.
	Elapsed time.Duration
}

// PlayDemo plays the demo file with the real client in a fresh home
// under dir and returns what its console said. The error is about
// running the client (not installed, timeout, Xvfb failure); whether the
// demo played is Playback.Err.
func PlayDemo(ctx context.Context, dir, demoPath string, opt Options) (*Playback, error) {
	if opt.Timeout <= 0 {
		opt.Timeout = 90 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, opt.Timeout)
	defer cancel()
	name := filepath.Base(demoPath)
	ext := filepath.Ext(name)
	if !strings.HasPrefix(ext, ".dm_") {
		return nil, fmt.Errorf("oaclient: %s: want a .dm_NN file", name)
	}
	home, err := os.MkdirTemp(dir, "oaclient-")
	if err != nil {
		return nil, err
	}
	demos := filepath.Join(home, "baseoa", "demos")
	if err := os.MkdirAll(demos, 0o755); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(demoPath)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(demos, name), data, 0o644); err != nil {
		return nil, err
	}

	display, stopX, err := startXvfb(ctx, home)
	if err != nil {
		return nil, err
	}
	defer stopX()

	args := []string{
		"+set", "fs_homepath", home,
		"+set", "net_enabled", "0", "+set", "cl_motd", "0", "+set", "cl_allowDownload", "0",
		"+set", "sv_master1", "", "+set", "sv_master2", "", "+set", "sv_master3", "",
		"+set", "sv_master4", "", "+set", "sv_master5", "",
		"+set", "cl_renderer", "opengl1", "+set", "r_fullscreen", "0", "+set", "r_mode", "-1",
		"+set", "r_customwidth", "320", "+set", "r_customheight", "240", "+set", "s_initsound", "0",
		"+set", "developer", "1", "+set", "timedemo", "1", "+set", "nextdemo", "quit",
	}
	if opt.Protocol68 {
		args = append(args, "+set", "com_protocol", "68", "+set", "com_legacyprotocol", "68")
	}
	args = append(args, opt.Args...)
	args = append(args, "+demo", name) // with its extension: CL_PlayDemo_f takes it as given
	cmd := exec.Command(Binary, args...)
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "DISPLAY=:"+display, "LIBGL_ALWAYS_SOFTWARE=1",
		"SDL_AUDIODRIVER=dummy", "MESA_SHADER_CACHE_DISABLE=true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	start := time.Now()
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, err
	}
	pw.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := sync.OnceFunc(func() { killGroup(cmd.Process.Pid, exited) })
	defer stop()

	pb := &Playback{}
	var log strings.Builder
	lines := make(chan struct{})
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			log.WriteString(sc.Text())
			log.WriteByte('\n')
			pb.line(sc.Text())
			if strings.Contains(sc.Text(), "ERROR:") {
				go stop() // ERR_DROP: the client goes back to the menu and stays; keep draining
			}
		}
		io.Copy(io.Discard, pr)
	}()
	var runErr error
	select {
	case <-exited:
	case <-ctx.Done():
		stop()
		runErr = fmt.Errorf("oaclient: client still running after %v: %w", opt.Timeout, ctx.Err())
	}
	<-exited
	<-lines
	pr.Close()
	pb.Elapsed = time.Since(start)
	pb.Log = log.String()
	return pb, runErr
}

// startXvfb starts a virtual X server on a free display (Xvfb picks it and
// writes it to -displayfd) and returns the display number and its stop.
func startXvfb(ctx context.Context, home string) (string, func(), error) {
	pr, pw, err := os.Pipe()
	if err != nil {
		return "", nil, err
	}
	defer pr.Close()
	logf, err := os.Create(filepath.Join(home, "xvfb.log"))
	if err != nil {
		pw.Close()
		return "", nil, err
	}
	defer logf.Close()
	x := exec.Command(Xvfb, "-displayfd", "3", "-screen", "0", "640x480x24", "-nolisten", "tcp")
	x.ExtraFiles = []*os.File{pw} // fd 3
	x.Stdout, x.Stderr = logf, logf
	x.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := x.Start(); err != nil {
		pw.Close()
		return "", nil, err
	}
	pw.Close()
	exited := make(chan struct{})
	go func() { x.Wait(); close(exited) }()
	stop := func() { killGroup(x.Process.Pid, exited) }
	got := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(pr).ReadString('\n')
		got <- strings.TrimSpace(line)
	}()
	wait, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	select {
	case d := <-got:
		if _, err := strconv.Atoi(d); err != nil {
			stop()
			b, _ := os.ReadFile(logf.Name())
			return "", nil, fmt.Errorf("oaclient: Xvfb gave no display (%q): %s", d, b)
		}
		return d, stop, nil
	case <-wait.Done():
		stop()
		return "", nil, errors.New("oaclient: Xvfb did not report a display within 15 s")
	}
}

// killGroup ends the process group pgid, whose leader closes exited when
// reaped: SIGTERM, then SIGKILL to the group after 5 s, then a last
// SIGKILL for any member left once the leader is gone.
func killGroup(pgid int, exited <-chan struct{}) {
	syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		syscall.Kill(-pgid, syscall.SIGKILL)
		<-exited
	}
	syscall.Kill(-pgid, syscall.SIGKILL) // ESRCH when the group is empty
}
