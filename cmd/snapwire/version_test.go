package main

import (
	"bytes"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionCommand: "snapwire version" and "snapwire --version" exit 0
// and print the module, a revision line and this Go version.
func TestVersionCommand(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 0 {
			t.Fatalf("%q: exit %d, stderr %q", args, code, errOut.String())
		}
		s := out.String()
		for _, want := range []string{"snapwire ", "\nmodule   github.com/snapwire/snapwire/cmd\n", "\nlibrary  github.com/snapwire/snapwire ", "\nrevision ", "\ngo       " + runtime.Version()} {
			if !strings.Contains(s, want) {
				t.Errorf("%q: output lacks %q:\n%s", args, want, s)
			}
		}
	}
}

// TestVersionText formats the build information a stamped binary, an
// unstamped one (go run) and one without any carry.
func TestVersionText(t *testing.T) {
	stamped := &debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "github.com/snapwire/snapwire", Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "c1dd91b0"}, {Key: "vcs.time", Value: "2026-11-27T19:00:00Z"}, {Key: "vcs.modified", Value: "true"}}}
	for _, c := range []struct {
		bi   *debug.BuildInfo
		want []string
	}{
		{stamped, []string{"snapwire v1.2.3\n", "revision c1dd91b0 2026-11-27T19:00:00Z (modified)\n", "go       go1.99 "}},
		{&debug.BuildInfo{GoVersion: "go1.99", Main: debug.Module{Path: "github.com/snapwire/snapwire", Version: "(devel)"}},
			[]string{"snapwire (devel)\n", "revision (unknown) (not stamped"}},
		{nil, []string{"snapwire (unknown)\n", "module   github.com/snapwire/snapwire/cmd\n", "library  github.com/snapwire/snapwire (unknown)\n", "revision (unknown)", "go       " + runtime.Version()}},
	} {
		got := versionText(c.bi)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("versionText lacks %q:\n%s", w, got)
			}
		}
	}
	clean := *stamped
	clean.Settings = clean.Settings[:2]
	if got := versionText(&clean); strings.Contains(got, "modified") {
		t.Errorf("a clean build says modified:\n%s", got)
	}
}
