package main

// "snapwire gen": the field generator (the snapgen command's code, internal/fieldgen) run on
// the directories given, for a developer who has the tools installed; go generate runs snapgen.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/snapwire/snapwire/internal/fieldgen"
)

func init() {
	register(command{name: "gen", summary: "write snap_gen.go, the codecs of the //snap:entity and //snap:message types of a package (as snapgen does)", run: runGen})
}

func runGen(args []string, stdout io.Writer) error {
	fs := newFlagSet("gen")
	check := fs.Bool("check", false, "write nothing; fail naming each "+fieldgen.OutputName+" that differs from its package's declarations")
	if err := fs.Parse(args); err != nil {
		return err
	}
	dirs := fs.Args()
	if len(dirs) == 0 {
		dirs = []string{"."}
	}
	for _, dir := range dirs {
		if *check {
			if err := fieldgen.Check(dir); err != nil {
				return err
			}
			continue
		}
		src, err := fieldgen.Generate(dir)
		if err != nil {
			return err
		}
		name := filepath.Join(dir, fieldgen.OutputName)
		if err := os.WriteFile(name, src, 0o644); err != nil {
			return err
		}
		fmt.Fprintln(stdout, "wrote", name)
	}
	return nil
}
