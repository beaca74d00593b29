package main

import (
	"bytes"
	"os"
	"sort"
	"strings"
	"testing"
)

// captureStderr runs f with os.Stderr sent to a file (the flag sets and
// group usages write there) and returns what f's call of run wrote to
// its own stderr followed by what went to os.Stderr.
func captureStderr(t *testing.T, f func(stderr *bytes.Buffer)) string {
	t.Helper()
	file, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	saved := os.Stderr
	os.Stderr = file
	var buf bytes.Buffer
	func() {
		defer func() { os.Stderr = saved }()
		f(&buf)
	}()
	b, err := os.ReadFile(file.Name())
	if err != nil {
		t.Fatal(err)
	}
	return buf.String() + string(b)
}

// commandPaths lists every registered command and subcommand ("serve",
// "token issue", "q3 connect"), sorted.
func commandPaths() [][]string {
	var paths [][]string
	for name, c := range commands {
		paths = append(paths, []string{name})
		for sub := range c.subs {
			paths = append(paths, []string{name, sub})
		}
	}
	sort.Slice(paths, func(i, j int) bool { return strings.Join(paths[i], " ") < strings.Join(paths[j], " ") })
	return paths
}

// TestHelpExitsZero walks every registered command and subcommand: -h,
// --help and "snapwire help PATH" exit 0 with a usage naming the command
// and nothing on stdout; the usage of a group lists its subcommands.
func TestHelpExitsZero(t *testing.T) {
	paths := commandPaths()
	for _, want := range [][]string{{"token", "keygen"}, {"token", "issue"}, {"q3", "connect"}, {"q3", "record"}, {"q3", "proxy"}, {"q3", "dump"}, {"version"}} {
		found := false
		for _, p := range paths {
			found = found || strings.Join(p, " ") == strings.Join(want, " ")
		}
		if !found {
			t.Errorf("%q is not registered", want)
		}
	}
	for _, p := range append([][]string{nil}, paths...) {
		name := strings.Join(append([]string{"snapwire"}, p...), " ")
		for _, args := range [][]string{
			append(append([]string(nil), p...), "-h"),
			append(append([]string(nil), p...), "--help"),
			append([]string{"help"}, p...),
		} {
			var out bytes.Buffer
			var code int
			errOut := captureStderr(t, func(stderr *bytes.Buffer) { code = run(args, &out, stderr) })
			if code != 0 {
				t.Errorf("%q: exit %d, want 0; stderr:\n%s", args, code, errOut)
				continue
			}
			if !strings.HasPrefix(errOut, "usage: "+name+" ") && !strings.HasPrefix(errOut, "usage: "+name+"\n") {
				t.Errorf("%q: usage does not start with %q:\n%s", args, "usage: "+name, errOut)
			}
			if strings.Contains(errOut, "unknown") {
				t.Errorf("%q: %s", args, errOut)
			}
			if out.Len() != 0 {
				t.Errorf("%q: stdout %q, want nothing", args, out.String())
			}
			if len(p) == 1 {
				for sub := range commands[p[0]].subs {
					if !strings.Contains(errOut, "\n  "+sub+" ") {
						t.Errorf("%q: usage does not list %q:\n%s", args, sub, errOut)
					}
				}
			}
		}
	}
}

// TestUsageErrorsExitTwo: a missing or unknown command still exits 2
// with the usage.
func TestUsageErrorsExitTwo(t *testing.T) {
	for _, args := range [][]string{{}, {"nope"}, {"token"}, {"token", "nope"}, {"q3"}, {"q3", "nope"}, {"help", "nope"}} {
		var code int
		errOut := captureStderr(t, func(stderr *bytes.Buffer) { code = run(args, new(bytes.Buffer), stderr) })
		if code != 2 || !strings.Contains(errOut, "usage: snapwire") {
			t.Errorf("%q: exit %d, stderr:\n%s", args, code, errOut)
		}
	}
}
