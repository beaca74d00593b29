package main

// snapwire q3: the Quake 3 protocol tools. Subcommands register themselves
// in q3Commands (this file and q3_*.go files).

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/snapwire/snapwire/internal/q3/capture"
)

// q3Commands are the subcommands of "snapwire q3"; each registers itself.
var q3Commands = map[string]command{}

func registerQ3(c command) {
	if _, dup := q3Commands[c.name]; dup {
		panic("snapwire: q3 command registered twice: " + c.name)
	}
	q3Commands[c.name] = c
}

func init() {
	register(command{name: "q3", summary: "Quake 3 protocol tools: connect, record, proxy, dump", subs: q3Commands})
	registerQ3(command{name: "dump", summary: "decode pcap captures and .dm_68/.dm_71 demos", run: runQ3Dump})
}

// parseInterleaved parses flags that may come before, between or after
// the positional arguments.
func parseInterleaved(fs interface {
	Parse([]string) error
	Args() []string
}, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

func runQ3Dump(args []string, stdout io.Writer) error {
	fs := newFlagSet("q3 dump")
	asJSON := fs.Bool("json", false, "print one JSON summary per file (JSON Lines)")
	verbose := fs.Bool("v", false, "print a cl_shownet-like line per message and op")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: snapwire q3 dump [--json] [-v] FILE...")
		fmt.Fprintln(fs.Output(), "Decodes classic pcap captures (connectionless packets, netchan, fragments,")
		fmt.Fprintln(fs.Output(), "Huffman, XOR keys recovered from the observed handshake) and demo files.")
		fs.PrintDefaults()
	}
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fs.Usage()
		return errUsage
	}
	totalErrors := 0
	for _, name := range files {
		s, err := dumpFile(name, *verbose, stdout)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		totalErrors += s.ParseErrors
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(s); err != nil {
				return err
			}
			continue
		}
		printSummary(stdout, s)
	}
	if totalErrors > 0 {
		return fmt.Errorf("%d parse errors", totalErrors)
	}
	return nil
}

func dumpFile(name string, verbose bool, stdout io.Writer) (*capture.Summary, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	opt := capture.Options{}
	if verbose {
		opt.Log = stdout
	}
	var s *capture.Summary
	switch {
	case capture.IsPcap(data):
		s, err = capture.DecodePcap(bytes.NewReader(data), opt)
	case strings.Contains(strings.ToLower(name), ".dm_") || !strings.HasSuffix(strings.ToLower(name), ".pcap"):
		s, err = capture.DecodeDemo(bytes.NewReader(data), opt)
	default:
		return nil, errors.New("not a classic pcap file")
	}
	if s != nil {
		s.File = name
	}
	return s, err
}

func printSummary(w io.Writer, s *capture.Summary) {
	fmt.Fprintf(w, "%s (%s): %d messages (%d server, %d client), %d parse errors, %d snapshots, %d configstrings, %d server commands, %d client commands\n",
		s.File, s.Kind, s.Messages, s.ServerMessages, s.ClientMessages, s.ParseErrors, s.Snapshots, len(s.Configstrings), s.ServerCommands, s.ClientCommands)
	if s.Kind == "pcap" {
		fmt.Fprintf(w, "  packets %d, connectionless %d, fragments %d, dropped %d, undecoded %d, usercmds %d\n",
			s.Packets, s.OOB, s.Fragments, s.Dropped, s.Undecoded, s.Usercmds)
	}
	for _, c := range s.Connections {
		fmt.Fprintf(w, "  connection %s -> %s: protocol %d, %s framing, challenge %d, qport %d, name %q, client %d\n",
			c.Client, c.Server, c.Protocol, c.Framing, c.Challenge, c.QPort, c.Userinfo["name"], c.ClientNum)
	}
	for _, m := range s.OOBMessages {
		fmt.Fprintf(w, "  %8.3f %s %s %s\n", m.Time, m.Dir, m.Command, m.Detail)
	}
	idx := make([]int, 0, len(s.Configstrings))
	for i := range s.Configstrings {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	for _, i := range idx {
		v := s.Configstrings[i]
		if len(v) > 100 {
			v = v[:100] + "..."
		}
		fmt.Fprintf(w, "  cs %d %q\n", i, v)
	}
	for _, e := range s.Errors {
		fmt.Fprintf(w, "  error: %s\n", e)
	}
}
