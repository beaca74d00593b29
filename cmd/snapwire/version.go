package main

// "snapwire version" (and "snapwire --version"): the tools' module version,
// the library's (the tools are a module of their own,
// github.com/snapwire/snapwire/cmd, beside the library), the VCS revision
// the binary was built from and the Go version, from the build information the go command embeds
// (runtime/debug.ReadBuildInfo).

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

func init() {
	register(command{name: "version", summary: "print the module version, VCS revision and Go version", run: runVersion})
}

func runVersion(args []string, stdout io.Writer) error {
	fs := newFlagSet("version")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	_, err := io.WriteString(stdout, versionText(bi))
	return err
}

// versionText formats bi (nil: no build information). "go build" in a
// git checkout stamps the revision; "go run" and "go test" do not, and a
// build outside a module version says "(devel)".
func versionText(bi *debug.BuildInfo) string {
	version, path, goVersion := "(unknown)", "github.com/snapwire/snapwire/cmd", runtime.Version()
	library := "(unknown)"
	revision, when, modified := "(unknown)", "", ""
	if bi != nil {
		if bi.Main.Path != "" {
			path = bi.Main.Path
		}
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		if bi.GoVersion != "" {
			goVersion = bi.GoVersion
		}
		for _, d := range bi.Deps {
			if d.Path == libraryModule {
				library = d.Version
				if d.Replace != nil {
					library += " => " + d.Replace.Path
				}
			}
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				when = " " + s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = " (modified)"
				}
			}
		}
	}
	if revision == "(unknown)" {
		revision += " (not stamped: go run, go test or -buildvcs=false)"
		when, modified = "", ""
	}
	return fmt.Sprintf("snapwire %s\nmodule   %s\nlibrary  %s %s\nrevision %s%s%s\ngo       %s %s/%s\n",
		version, path, libraryModule, library, revision, when, modified, goVersion, runtime.GOOS, runtime.GOARCH)
}

// libraryModule is the library's module, which the tools' module requires.
const libraryModule = "github.com/snapwire/snapwire"
