// Command snapgen writes the codecs of a game's declared fields: for every struct type of the
// package in the current directory marked //snap:entity (entities and non-PVS states) or
// //snap:message (game messages), the methods WriteSnapshot and ReadSnapshot or WriteMessage and
// ReadMessage, and SnapFields, into snap_gen.go. A game runs it with
//
//	//go:generate go run github.com/snapwire/snapwire/snapgen
//
// and go generate. With -check it writes nothing and exits 1 when snap_gen.go is stale. The tags
// are described in the doc of the generator's package (internal/fieldgen) and in docs/GUIDE.md.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/snapwire/snapwire/internal/fieldgen"
)

func main() {
	check := flag.Bool("check", false, "write nothing; exit 1 when "+fieldgen.OutputName+" differs from what the declarations produce")
	flag.Usage = func() {
		fmt.Fprintf(os.Stderr, "usage: snapgen [-check]\n\nWrites %s for the //snap:entity and //snap:message types of the package in the current directory.\n", fieldgen.OutputName)
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 0 {
		flag.Usage()
		os.Exit(2)
	}
	if err := run(*check); err != nil {
		fmt.Fprintln(os.Stderr, "snapgen:", err)
		os.Exit(1)
	}
}

func run(check bool) error {
	if check {
		return fieldgen.Check(".")
	}
	src, err := fieldgen.Generate(".")
	if err != nil {
		return err
	}
	return os.WriteFile(fieldgen.OutputName, src, 0o644)
}
