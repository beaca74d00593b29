// Command snapgen writes the codecs of a game's declared fields: for every struct type of the
// package in the current directory marked //snap:entity (entities and non-PVS states) or
// //snap:message (game messages), the methods WriteSnapshot and ReadSnapshot or WriteMessage and
// ReadMessage, and SnapFields, into snap_gen.go. A game runs it with
//
//	//go:generate go run github.com/snapwire/snapwire/snapgen
//
// and go generate. With -check it writes nothing and exits 1 when snap_gen.go is stale. The
// generated code is plain Go: no reflection, and no allocation except ReadString's.
//
// Fields go on the wire in declaration order; DOOM III §4.3 advises putting the often changing
// ones first so the unchanged ones form long zero runs. The tags:
//
//	(none)              the Go type's own width: bool 1 bit, int8/uint8 8, ..., int64/uint64 64;
//	                    float32 32 (IEEE, raw); int and uint are refused (no fixed width)
//	bits=N              an integer in N bits (two's complement when signed; an unsigned value's
//	                    bits above N are not sent)
//	min=A,max=B         an integer in [A,B], BitsFor(B-A) bits; the reader refuses values outside
//	enum                a named integer type in the range of its constants
//	min=A,max=B         on a float32: 32 bits, clamped into [A,B] on read (NaN as 0, clamped)
//	half                on a float32: IEEE binary16 (DOOM III §4.1 velocities); with min,max clamped
//	min=A,max=B,step=S  on a float32: quantised to A+k*S, k in 0..(B-A)/S (a whole number),
//	                    BitsFor((B-A)/S) bits, clamped on both ends
//	angle16, angle8     on a float32 in degrees: 16 or 8 bits (DOOM III §4.1), [0,360) on read
//	max=N               on a string: at most N bytes
//	len=Count           on an array: the first Count elements (an earlier integer field, bounded
//	                    by the array's length); the others read as zero
//	-                   not sent
//
// An array's other tags are its elements'; nested structs are written field by field. Values are
// constant expressions of the package (max=MaxHealth), written verbatim into the code; SnapFields
// holds their values, so it changes with any name, kind, width, bound or order. What a tag does
// not apply to, or two tags that contradict, are errors naming the file and line.
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
