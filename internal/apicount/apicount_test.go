package main

import (
	"os"
	"regexp"
	"strconv"
	"testing"
)

// TestPublicSurface holds the public packages' exported identifiers, counted
// as the apicount command counts them, under Limit, and logs each package's
// count.
func TestPublicSurface(t *testing.T) {
	counts, err := Count("../..")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, c := range counts {
		t.Logf("%-24s %4d", c.Package, c.Exported)
		total += c.Exported
	}
	t.Logf("total %d in %d packages (limit %d)", total, len(counts), Limit)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`fields: (\d+) in all today`).FindSubmatch(readme); m == nil {
		t.Error("README.md no longer quotes the count (\"fields: N in all today\"): update this test")
	} else if n, _ := strconv.Atoi(string(m[1])); n != total {
		t.Errorf("README.md says %d exported identifiers, apicount counts %d", n, total)
	}
	if total >= Limit {
		t.Errorf("the public packages export %d identifiers, the limit is under %d: move what a game developer does not need under internal/", total, Limit)
	}
}

// TestCountFile counts a file with every kind of declaration.
func TestCountFile(t *testing.T) {
	counts, err := Count("testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	// Exported: C, V, F, T, T.Field, T.Embedded(Reader), T.M, I, I.Do,
	// Alias; not: c, v, f, t, T.m, t.M, T.field, I.do.
	if len(counts) != 1 || counts[0].Exported != 10 {
		t.Errorf("counts %+v, want one package with 10", counts)
	}
}

// TestNoInternalTypesInPublicAPI: an exported function, method, type, field
// or variable of a public package never mentions a type of an internal
// package, which a user could see in "go doc" and not name.
func TestNoInternalTypesInPublicAPI(t *testing.T) {
	uses, err := InternalTypes("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range uses {
		t.Errorf("%s: %s mentions %s", u.Pos, u.Decl, u.Type)
	}
}
