package acceptance

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// ciRun is one "acceptance NAME REGEXP ... PKG..." line of .ci/run.
type ciRun struct {
	re   *regexp.Regexp
	pkgs []string // "./internal/soak"
}

// ciRuns reads the acceptance runs .ci/run starts, by name.
func ciRuns(t *testing.T, root string) map[string][]ciRun {
	t.Helper()
	f, err := os.Open(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	line := regexp.MustCompile(`^(?:[A-Z_]+=\S+ )*acceptance ([a-z0-9-]+) '([^']+)' (.*)$`)
	runs := map[string][]ciRun{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := line.FindStringSubmatch(strings.TrimSpace(sc.Text()))
		if m == nil {
			continue
		}
		re, err := regexp.Compile(m[2])
		if err != nil {
			t.Fatalf(".ci/run: acceptance %s: %v", m[1], err)
		}
		var pkgs []string
		for _, a := range strings.Fields(m[3]) {
			if strings.HasPrefix(a, "./") {
				pkgs = append(pkgs, a)
			}
		}
		runs[m[1]] = append(runs[m[1]], ciRun{re: re, pkgs: pkgs})
	}
	return runs
}

// Every test gated by Require or Enabled is started by .ci/run: a line
// "acceptance NAME REGEXP PKG..." whose regexp matches the test's name
// and whose packages hold it. A gated test that no run selects would
// never run anywhere.
func TestCIRunsEveryAcceptanceTest(t *testing.T) {
	root := filepath.Join("..", "..")
	runs := ciRuns(t, root)
	if len(runs) == 0 {
		t.Fatal(".ci/run starts no acceptance run")
	}
	used := map[string]bool{}
	fset := token.NewFileSet()
	gated := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		pkg := "./" + filepath.ToSlash(rel)
		for _, decl := range file.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok || (sel.Sel.Name != "Require" && sel.Sel.Name != "Enabled") {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "acceptance" {
					return true
				}
				lit, ok := call.Args[len(call.Args)-1].(*ast.BasicLit)
				if !ok {
					t.Errorf("%s: %s: the acceptance run's name is not a literal", path, fn.Name.Name)
					return true
				}
				name, _ := strconv.Unquote(lit.Value)
				gated++
				found := false
				for _, r := range runs[name] {
					for _, p := range r.pkgs {
						if p == pkg && r.re.MatchString(fn.Name.Name) {
							found = true
						}
					}
				}
				if !found {
					t.Errorf("%s.%s is gated as acceptance run %q, but no \"acceptance %s\" line of .ci/run selects it in %s", pkg, fn.Name.Name, name, name, pkg)
				}
				used[name] = true
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for name := range runs {
		if !used[name] {
			t.Errorf(".ci/run starts acceptance run %q, which no test is gated by", name)
		}
	}
	t.Logf("%d gated tests in %d acceptance runs", gated, len(runs))
}

// TestCIPackagesExist: every directory .ci/run names with a leading "./"
// in its commands (the race run's list, the acceptance runs) exists, so a
// package that moves cannot silently leave a run testing nothing.
func TestCIPackagesExist(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	path := regexp.MustCompile(`(?:^|[\s"])\./([a-z0-9_][a-z0-9_/.-]*)`)
	n := 0
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		for _, m := range path.FindAllStringSubmatch(line, -1) {
			p := strings.TrimSuffix(m[1], "/...")
			p = strings.TrimSuffix(p, "/")
			if p == "..." || strings.HasPrefix(p, ".ci") {
				continue
			}
			n++
			if fi, err := os.Stat(filepath.Join(root, p)); err != nil || !fi.IsDir() {
				t.Errorf(".ci/run:%d names ./%s, which is not a directory of the repository", i+1, m[1])
			}
		}
	}
	if n == 0 {
		t.Fatal("found no package paths in .ci/run")
	}
	t.Logf("%d package paths checked", n)
}
