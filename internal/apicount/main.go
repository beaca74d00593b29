// Command apicount counts the identifiers each public package of snapwire
// exports, the surface a game developer reads in "go doc": exported
// constants, variables, functions and types, the exported methods of
// exported types, the exported fields of exported structs and the exported
// methods of exported interfaces. Packages under an internal directory, main
// packages, examples/ and test files are not counted.
//
//	go run ./internal/apicount          # a table, from the repository's root
//	go run ./internal/apicount -json
//
// TestPublicSurface (apicount_test.go) holds the total under Limit.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	asJSON := flag.Bool("json", false, "print the counts as JSON")
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	counts, err := Count(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "apicount:", err)
		os.Exit(1)
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(counts); err != nil {
			fmt.Fprintln(os.Stderr, "apicount:", err)
			os.Exit(1)
		}
		return
	}
	total := 0
	for _, c := range counts {
		fmt.Printf("%-28s %5d\n", c.Package, c.Exported)
		total += c.Exported
	}
	fmt.Printf("%-28s %5d  (%d packages; limit %d)\n", "total", total, len(counts), Limit)
}
