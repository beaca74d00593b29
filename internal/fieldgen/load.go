package fieldgen

import (
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/build"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// readPackage returns the package's Go files in dir (not its tests, not files the build
// constraints of this platform exclude, not the generated OutputName), by name.
func readPackage(dir string) (map[string][]byte, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") || name == OutputName {
			continue
		}
		if ok, err := build.Default.MatchFile(dir, name); err != nil || !ok {
			continue
		}
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		files[name] = src
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: no Go files", dir)
	}
	return files, nil
}

// loaded is a parsed and type-checked package.
type loaded struct {
	fset  *token.FileSet
	files []*ast.File // by file name
	pkg   *types.Package
}

// load parses files (named as in dir) and type-checks them. The imports are read from the
// export data `go list -export` builds in listDir (the package's own directory, or any directory
// of the same module). Type errors are tolerated where they do not touch the declared types:
// before the first generation the package's code may already use the methods the generator
// writes.
func load(dir, listDir string, files map[string][]byte) (*loaded, error) {
	fset := token.NewFileSet()
	names := make([]string, 0, len(files))
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	l := &loaded{fset: fset}
	imports := map[string]bool{}
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), files[name], parser.ParseComments)
		if err != nil {
			return nil, err
		}
		if len(l.files) > 0 && f.Name.Name != l.files[0].Name.Name {
			return nil, fmt.Errorf("%s: package %s, and %s in %s", fset.Position(f.Package), f.Name.Name, l.files[0].Name.Name, dir)
		}
		l.files = append(l.files, f)
		for _, imp := range f.Imports {
			if p, err := strconv.Unquote(imp.Path.Value); err == nil && p != "C" && p != "unsafe" {
				imports[p] = true
			}
		}
	}
	exports, err := exportData(listDir, imports)
	if err != nil {
		return nil, err
	}
	var typeErrs []error
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := exports[path]
			if !ok || file == "" {
				return nil, fmt.Errorf("no export data for %q (go list -export)", path)
			}
			return os.Open(file)
		}),
		Error: func(err error) { typeErrs = append(typeErrs, err) },
	}
	l.pkg, _ = conf.Check(l.files[0].Name.Name, fset, l.files, nil)
	if l.pkg == nil {
		return nil, errors.Join(typeErrs...)
	}
	for _, err := range typeErrs {
		if te, ok := err.(types.Error); ok && !te.Soft && strings.Contains(te.Msg, "could not import") {
			return nil, err
		}
	}
	return l, nil
}

// exportData returns the export data files of the imports and their dependencies, by import
// path, from one `go list -export -deps` in dir.
func exportData(dir string, imports map[string]bool) (map[string]string, error) {
	exports := map[string]string{}
	if len(imports) == 0 {
		return exports, nil
	}
	args := []string{"list", "-e", "-export", "-deps", "-f", "{{.ImportPath}}\t{{.Export}}"}
	for p := range imports {
		args = append(args, p)
	}
	slices.Sort(args[6:])
	cmd := exec.Command("go", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export in %s: %v\n%s", dir, err, stderr.Bytes())
	}
	for line := range strings.Lines(string(out)) {
		path, file, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "\t")
		if ok {
			exports[path] = file
		}
	}
	return exports, nil
}
