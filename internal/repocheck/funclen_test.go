package repocheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MaxFuncLines is the longest a function or method may be, counted from the
// line of its "func" keyword to the line of its closing brace (issue 23: "No
// function outside generated code and tests is longer than 120 lines").
const MaxFuncLines = 120

// longFunc is one function or method declaration longer than MaxFuncLines.
type longFunc struct {
	Pos   token.Position // the "func" keyword
	Name  string         // "F" or "T.M"
	Lines int
}

func (f longFunc) String() string {
	return fmt.Sprintf("%s:%d: %s is %d lines (limit %d)", f.Pos.Filename, f.Pos.Line, f.Name, f.Lines, MaxFuncLines)
}

// TestFunctionLength fails for every function or method declaration, in a
// non-test, non-generated .go file of either module, that is longer than
// MaxFuncLines. Files are parsed, not built, so every build tag counts.
func TestFunctionLength(t *testing.T) {
	files, err := sourceFiles(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no .go files under %s", repoRoot)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("parse: %v", err)
			continue
		}
		if ast.IsGenerated(f) {
			continue
		}
		for _, lf := range longFuncs(fset, f, MaxFuncLines) {
			lf.Pos.Filename = relPath(lf.Pos.Filename)
			t.Error(lf)
		}
	}
}

// sourceFiles lists the non-test .go files under root, skipping
// node_modules, testdata and directories whose name starts with a dot.
func sourceFiles(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "node_modules" || name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") {
			files = append(files, path)
		}
		return nil
	})
	return files, err
}

// longFuncs returns the function and method declarations of f longer than
// limit lines, from the "func" keyword to the closing brace.
func longFuncs(fset *token.FileSet, f *ast.File, limit int) []longFunc {
	var long []longFunc
	for _, decl := range f.Decls {
		fd, ok := decl.(*ast.FuncDecl)
		if !ok {
			continue
		}
		start := fset.Position(fd.Pos())
		lines := fset.Position(fd.End()).Line - start.Line + 1
		if lines > limit {
			long = append(long, longFunc{Pos: start, Name: funcName(fd), Lines: lines})
		}
	}
	return long
}

// funcName names a declaration as "F", or "T.M" for a method of T or *T.
func funcName(fd *ast.FuncDecl) string {
	if fd.Recv == nil || len(fd.Recv.List) == 0 {
		return fd.Name.Name
	}
	typ := fd.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		case *ast.ParenExpr:
			typ = x.X
			continue
		case *ast.Ident:
			return x.Name + "." + fd.Name.Name
		}
		return fd.Name.Name
	}
}

// relPath names path relative to the repository root when it can.
func relPath(path string) string {
	root, err := filepath.Abs(repoRoot)
	if err != nil {
		return path
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if rel, err := filepath.Rel(root, abs); err == nil {
		return rel
	}
	return path
}

// TestLongFuncs checks the measure on a source with a function of exactly
// the limit, one a line over it, and a method on a generic pointer receiver.
func TestLongFuncs(t *testing.T) {
	const limit = 5
	src := "package p\n\n" +
		"// Doc lines do not count.\n" +
		"func atLimit() {\n\t_ = 1\n\t_ = 2\n\t_ = 3\n}\n\n" + // lines 4-8: 5 lines
		"func overLimit() {\n\t_ = 1\n\t_ = 2\n\t_ = 3\n\t_ = 4\n}\n\n" + // lines 10-15: 6 lines
		"type T[K any] struct{}\n\n" +
		"func (t *T[K]) M() {\n\t_ = 1\n\t_ = 2\n\t_ = 3\n\t_ = 4\n\t_ = 5\n}\n" + // lines 19-25: 7 lines
		"func oneLine() {}\n"
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	got := longFuncs(fset, f, limit)
	want := []longFunc{
		{Name: "overLimit", Lines: 6},
		{Name: "T.M", Lines: 7},
	}
	wantLine := []int{10, 19}
	if len(got) != len(want) {
		t.Fatalf("longFuncs = %v, want %v", got, want)
	}
	for i := range want {
		if got[i].Name != want[i].Name || got[i].Lines != want[i].Lines || got[i].Pos.Line != wantLine[i] {
			t.Errorf("longFuncs[%d] = %v, want %s of %d lines at line %d", i, got[i], want[i].Name, want[i].Lines, wantLine[i])
		}
	}
}

// TestSourceFilesSkips checks that the walk skips testdata, node_modules,
// dot directories and test files, and keeps the rest.
func TestSourceFilesSkips(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{
		"a.go", "a_test.go", "sub/b.go", "testdata/c.go",
		"web/node_modules/d.go", ".git/e.go", "sub/.hidden/f.go", "README.md",
	} {
		path := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("package p\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	files, err := sourceFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	var rel []string
	for _, f := range files {
		r, _ := filepath.Rel(root, f)
		rel = append(rel, filepath.ToSlash(r))
	}
	if got, want := strings.Join(rel, " "), "a.go sub/b.go"; got != want {
		t.Errorf("sourceFiles = %q, want %q", got, want)
	}
}
