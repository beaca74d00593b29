package repocheck

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the package import block of docs/ARCHITECTURE.md")

// The block of docs/ARCHITECTURE.md that TestArchitecture checks lies
// between these two lines.
const (
	importsBegin = "<!-- package imports: begin (go test ./internal/repocheck -run TestArchitecture -update rewrites it) -->"
	importsEnd   = "<!-- package imports: end -->"
)

// buildConfigs are the build configurations whose imports the graph joins:
// the default one, the window's (build tag play) and the browser's
// (js/wasm, tag play), so that a file of any of them counts.
var buildConfigs = []struct {
	env  []string
	args []string
}{
	{nil, nil},
	{nil, []string{"-tags", "play"}},
	{[]string{"GOOS=js", "GOARCH=wasm"}, []string{"-tags", "play"}},
}

// importGraph is our packages' imports of our packages: non-test files
// only, the union of buildConfigs. Keys and values are paths relative to
// the repository root ("internal/snapshot", "cmd/internal/rtc").
// testOnly holds the packages that only tests import (test helpers: a
// fake sidecar, the small test game, the acceptance gate): the graph lists
// them with their own imports, and no package points at them.
type importGraph struct {
	imports  map[string][]string
	testOnly map[string]bool
}

func loadImportGraph(t *testing.T) importGraph {
	t.Helper()
	g := importGraph{imports: map[string][]string{}, testOnly: map[string]bool{}}
	importedByTests := map[string]bool{}
	importedByCode := map[string]bool{}
	for _, bc := range buildConfigs {
		pkgs, err := goList(bc.env, append(bc.args, "./...", "./cmd/...", "./play/...")...)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range pkgs {
			if p.Name == "" {
				continue // no file for this configuration
			}
			name := strings.TrimPrefix(p.ImportPath, module+"/")
			deps := g.imports[name]
			if deps == nil {
				deps = []string{}
			}
			for _, imp := range p.Imports {
				if dep, ok := ours(imp); ok {
					importedByCode[dep] = true
					if !slices.Contains(deps, dep) {
						deps = append(deps, dep)
					}
				}
			}
			for _, imp := range slices.Concat(p.TestImports, p.XTestImports) {
				if dep, ok := ours(imp); ok && dep != name { // an external test imports its own package
					importedByTests[dep] = true
				}
			}
			slices.Sort(deps)
			g.imports[name] = deps
		}
	}
	for p := range importedByTests {
		if !importedByCode[p] {
			g.testOnly[p] = true
		}
	}
	return g
}

// ours returns the path of one of our packages relative to the repository
// root.
func ours(importPath string) (string, bool) {
	return strings.CutPrefix(importPath, module+"/")
}

// levels returns each package's level: 0 for one that imports none of
// ours, otherwise one more than the highest level among its imports.
func (g importGraph) levels(t *testing.T) map[string]int {
	t.Helper()
	lv := map[string]int{}
	visiting := map[string]bool{}
	var level func(p string) int
	level = func(p string) int {
		if l, ok := lv[p]; ok {
			return l
		}
		if visiting[p] {
			t.Fatalf("import cycle through %s", p)
		}
		visiting[p] = true
		l := 0
		for _, d := range g.imports[p] {
			l = max(l, level(d)+1)
		}
		lv[p] = l
		return l
	}
	for p := range g.imports {
		level(p)
	}
	return lv
}

// block renders g the way docs/ARCHITECTURE.md shows it: one line per
// package, "pkg -> dep, dep", bottom-up by level (a package comes after
// every package it imports), by path within a level.
func (g importGraph) block(t *testing.T) string {
	lv := g.levels(t)
	pkgs := make([]string, 0, len(g.imports))
	for p := range g.imports {
		pkgs = append(pkgs, p)
	}
	slices.SortFunc(pkgs, func(a, b string) int {
		if lv[a] != lv[b] {
			return lv[a] - lv[b]
		}
		return strings.Compare(a, b)
	})
	width := 0
	for _, p := range pkgs {
		width = max(width, len(g.label(p)))
	}
	var b strings.Builder
	b.WriteString("```text\n")
	last := -1
	for _, p := range pkgs {
		if lv[p] != last {
			if last >= 0 {
				b.WriteString("\n")
			}
			last = lv[p]
			if last == 0 {
				b.WriteString("# level 0: imports none of our packages\n")
			} else {
				fmt.Fprintf(&b, "# level %d\n", last)
			}
		}
		if len(g.imports[p]) == 0 {
			fmt.Fprintf(&b, "%s\n", g.label(p))
			continue
		}
		fmt.Fprintf(&b, "%-*s -> %s\n", width, g.label(p), strings.Join(g.imports[p], ", "))
	}
	b.WriteString("```\n")
	return b.String()
}

// label is a package's path, with " (tests)" after a test helper.
func (g importGraph) label(p string) string {
	if g.testOnly[p] {
		return p + " (tests)"
	}
	return p
}

// TestArchitecture checks that the package import block of
// docs/ARCHITECTURE.md is the import graph "go list" reports for both
// modules (see importGraph), and the import rules that page states. With
// -update it rewrites the block:
//
//	go test ./internal/repocheck -run TestArchitecture -update
func TestArchitecture(t *testing.T) {
	g := loadImportGraph(t)

	// The rules docs/ARCHITECTURE.md states: the packages at the bottom of
	// the stack import nothing of ours, netchan, snapshot, game and
	// lockstep only what the page names, and a transport (rtc) no server.
	for pkg, allowed := range map[string][]string{
		"bitmsg":              {"internal/bitlayout"},
		"internal/bitlayout":  nil,
		"internal/zrle":       nil,
		"netsim":              {"internal/netsimhook"},
		"internal/netsimhook": nil,
		"token":               {"internal/tokenwire"},
		"internal/tokenwire":  nil,
		"internal/udprun":     nil,
		"internal/netchan":    {"internal/zrle", "internal/entropy"},
		"internal/snapshot":   {"bitmsg", "game", "internal/bitlayout", "internal/usercmd", "internal/events"},
		"internal/usercmd":    {"bitmsg", "game"},
		"internal/events":     {"bitmsg", "game", "internal/bitlayout"},
		"game":                {"bitmsg"},

		"internal/entropy":   nil,
		"internal/lockstep":  {"bitmsg", "game", "internal/bitlayout"},
		"internal/ratelimit": nil,
		"internal/transport": nil,
		"cmd/internal/rtc":   {"internal/transport", "internal/signalling"},
	} {
		deps, ok := g.imports[pkg]
		if !ok {
			t.Errorf("%s: no such package (docs/ARCHITECTURE.md's rules name it)", pkg)
		}
		for _, d := range deps {
			if !slices.Contains(allowed, d) {
				t.Errorf("%s imports %s: docs/ARCHITECTURE.md says it imports only %v of ours", pkg, d, allowed)
			}
		}
	}

	name := filepath.Join(repoRoot, "docs", "ARCHITECTURE.md")
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	before, rest, ok1 := strings.Cut(doc, importsBegin+"\n")
	got, after, ok2 := strings.Cut(rest, importsEnd)
	if !ok1 || !ok2 {
		t.Fatalf("docs/ARCHITECTURE.md: no block between %q and %q", importsBegin, importsEnd)
	}
	want := g.block(t)
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile(name, []byte(before+importsBegin+"\n"+want+importsEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/ARCHITECTURE.md's package imports differ from go list's; run\n\tgo test ./internal/repocheck -run TestArchitecture -update\n%s", lineDiff(got, want))
}

// lineDiff lists the lines only the doc has (-) and only go list's graph
// has (+).
func lineDiff(doc, want string) string {
	d, w := strings.Split(doc, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for _, l := range d {
		if !slices.Contains(w, l) {
			fmt.Fprintf(&b, "-%s\n", l)
		}
	}
	for _, l := range w {
		if !slices.Contains(d, l) {
			fmt.Fprintf(&b, "+%s\n", l)
		}
	}
	return b.String()
}
