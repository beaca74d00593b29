// Command snapwire runs the snapwire toolset: a demo of the DOOM III network
// architecture over a simulated network, a real-time UDP link simulator, the
// server and bot ends over real UDP, the benchmark suite and the Quake 3 tools.
//
// Each subcommand lives in its own file and registers itself in init with
// register, so the dispatcher below never changes when a command is added.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand of the snapwire CLI.
type command struct {
	name    string
	summary string
	// run parses args (without the subcommand name) and does the work,
	// writing results to stdout. It returns errUsage after printing usage.
	run func(args []string, stdout io.Writer) error
}

var commands = map[string]command{}

// errUsage tells main that the command has already printed its usage.
var errUsage = errors.New("usage")

func register(c command) {
	if _, dup := commands[c.name]; dup {
		panic("snapwire: command registered twice: " + c.name)
	}
	commands[c.name] = c
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: snapwire <command> [flags]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'snapwire <command> -h' for a command's flags.")
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "snapwire: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	if err := c.run(args[1:], stdout); err != nil {
		if errors.Is(err, errUsage) || errors.Is(err, flag.ErrHelp) {
			return 2
		}
		fmt.Fprintf(stderr, "snapwire %s: %v\n", c.name, err)
		return 1
	}
	return 0
}

// newFlagSet returns a flag set for a subcommand that reports errors to
// stderr instead of exiting.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("snapwire "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}
