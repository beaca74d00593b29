// Command snapwire runs the snapwire toolset: a demo of the DOOM III network
// architecture over a simulated network, a real-time UDP link simulator, the
// server and bot ends over real UDP, the benchmark suite and the Quake 3 tools.
//
// Each subcommand lives in its own file and registers itself in init with
// register, so the dispatcher below never changes when a command is added.
//
// Every command and subcommand answers -h, -help and --help with its usage
// on stderr and exit status 0; a usage error (a missing argument, an
// unknown flag or command) prints the usage on stderr and exits 2.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// command is one subcommand of the snapwire CLI, or one subcommand of a
// group of them ("snapwire token issue", "snapwire q3 connect").
type command struct {
	name    string
	summary string
	// run parses args (without the subcommand name) and does the work,
	// writing results to stdout. It returns errUsage after printing usage,
	// flag.ErrHelp after printing the help that -h asked for.
	run func(args []string, stdout io.Writer) error
	// subs, when set, are the command's own subcommands: run is then
	// runGroup over them, unless given.
	subs map[string]command
}

var commands = map[string]command{}

// errUsage tells main that the command has already printed its usage.
var errUsage = errors.New("usage")

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("snapwire: command registered twice: " + c.name)
	}
	if c.run == nil && c.subs != nil {
		c.run = func(args []string, stdout io.Writer) error { return runGroup(c.name, c.subs, args, stdout) }
	}
	commands[c.name] = c
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// listCommands writes the names and summaries of cmds, sorted.
func listCommands(w io.Writer, cmds map[string]command) {
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, cmds[n].summary)
	}
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: snapwire <command> [flags]")
	fmt.Fprintln(w, "       snapwire --version")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	listCommands(w, commands)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'snapwire <command> -h' (or 'snapwire help <command>') for a command's flags.")
}

// groupUsage is the usage of a command with subcommands.
func groupUsage(w io.Writer, group string, subs map[string]command) {
	fmt.Fprintf(w, "usage: snapwire %s <command> [flags] [args]\n", group)
	if s := commands[group].summary; s != "" {
		fmt.Fprintf(w, "\n%s\n", s)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	listCommands(w, subs)
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Run 'snapwire %s <command> -h' for a command's flags.\n", group)
}

// runGroup runs the subcommand of group that args name; -h, --help and
// help print the group's usage ("help CMD": CMD's).
func runGroup(group string, subs map[string]command, args []string, stdout io.Writer) error {
	if len(args) == 0 {
		groupUsage(os.Stderr, group, subs)
		return errUsage
	}
	if isHelp(args[0]) {
		if len(args) > 1 {
			if c, ok := subs[args[1]]; ok {
				return c.run([]string{"-h"}, stdout)
			}
		}
		groupUsage(os.Stderr, group, subs)
		return flag.ErrHelp
	}
	c, ok := subs[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "snapwire %s: unknown command %q\n\n", group, args[0])
		groupUsage(os.Stderr, group, subs)
		return errUsage
	}
	return c.run(args[1:], stdout)
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = []string{"version"}
	}
	if isHelp(args[0]) {
		if len(args) == 1 {
			usage(stderr)
			return 0
		}
		// "snapwire help CMD [SUB]" is "snapwire CMD [SUB] -h".
		args = append(args[1:len(args):len(args)], "-h")
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "snapwire: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if err := c.run(args[1:], stdout); err != nil {
		switch {
		case errors.Is(err, flag.ErrHelp):
			return 0
		case errors.Is(err, errUsage):
			return 2
		}
		fmt.Fprintf(stderr, "snapwire %s: %v\n", c.name, err)
		return 1
	}
	return 0
}

// newFlagSet returns a flag set for a subcommand ("serve", "token issue")
// that reports errors to stderr instead of exiting. Its usage names the
// command, its summary and its flags; a command with positional arguments
// sets its own.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("snapwire "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "usage: snapwire %s [flags]\n", name)
		if s := summaryOf(name); s != "" {
			fmt.Fprintf(w, "\n%s\n", s)
		}
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(w, "\nflags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// summaryOf returns the summary of the command path names ("token issue").
func summaryOf(name string) string {
	f := strings.Fields(name)
	if len(f) == 0 {
		return ""
	}
	c, ok := commands[f[0]]
	for _, sub := range f[1:] {
		c, ok = c.subs[sub]
	}
	if !ok {
		return ""
	}
	return c.summary
}
