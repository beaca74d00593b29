package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
)

// Limit is the most exported identifiers the public packages may hold
// together (issue 23: a surface a game developer can hold in their head).
// Issue 23 brought the surface to 565 under a limit of 600; issue 24 added
// what a game developer asked for (game messages, owner-predicted entities,
// the input's client and player, spawning without numbers, the window
// package play: 52 in all), and the limit moved to 650 with it; issue 25's
// many matches per process (server.Host, ListenHost, Runner.DoHost, the
// match a token and a client name: 19) moved it to 670.
const Limit = 670

// PackageCount is one public package's exported identifiers.
type PackageCount struct {
	Package  string `json:"package"` // directory, relative to the root
	Exported int    `json:"exported"`
}

// Count walks root and counts every public package's exported identifiers.
// Nested modules (a directory with its own go.mod) are walked too: they are
// published beside the library.
func Count(root string) ([]PackageCount, error) {
	byDir := map[string]int{}
	err := walkPublic(root, func(rel string, _ *token.FileSet, f *ast.File) {
		byDir[filepath.ToSlash(filepath.Dir(rel))] += countFile(f)
	})
	if err != nil {
		return nil, err
	}
	var out []PackageCount
	for dir, n := range byDir {
		out = append(out, PackageCount{Package: dir, Exported: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Package < out[j].Package })
	return out, nil
}

// countFile counts one file's exported identifiers.
func countFile(f *ast.File) (n int) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if d.Recv != nil && !ast.IsExported(receiverType(d.Recv)) {
				continue
			}
			n++
		case *ast.GenDecl:
			for _, spec := range d.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					for _, name := range s.Names {
						if name.IsExported() {
							n++
						}
					}
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					n++
					n += exportedMembers(s.Type)
				}
			}
		}
	}
	return n
}

// exportedMembers counts a struct's exported fields (embedded ones included)
// or an interface's exported methods.
func exportedMembers(t ast.Expr) int {
	var list *ast.FieldList
	switch t := t.(type) {
	case *ast.StructType:
		list = t.Fields
	case *ast.InterfaceType:
		list = t.Methods
	default:
		return 0
	}
	n := 0
	for _, field := range list.List {
		if len(field.Names) == 0 {
			if ast.IsExported(typeName(field.Type)) {
				n++
			}
			continue
		}
		for _, name := range field.Names {
			if name.IsExported() {
				n++
			}
		}
	}
	return n
}

func receiverType(recv *ast.FieldList) string {
	if len(recv.List) == 0 {
		return ""
	}
	return typeName(recv.List[0].Type)
}

// typeName is the name of a (possibly pointer, generic or qualified) type.
func typeName(t ast.Expr) string {
	switch t := t.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return typeName(t.X)
	case *ast.SelectorExpr:
		return t.Sel.Name
	case *ast.IndexExpr:
		return typeName(t.X)
	case *ast.IndexListExpr:
		return typeName(t.X)
	}
	return ""
}

// InternalUse is an exported declaration of a public package whose
// signature or fields name a type of an internal package: a user can see it
// in "go doc" but cannot name the type.
type InternalUse struct {
	Pos  string `json:"pos"`  // file:line
	Decl string `json:"decl"` // the exported identifier
	Type string `json:"type"` // the internal package's import path and selector
}

// InternalTypes walks root's public packages, like Count, and reports every
// exported declaration (a function's signature, a method of an exported
// type, an exported type's definition, an exported variable's or constant's
// type, an exported field) that mentions a package under an internal
// directory.
func InternalTypes(root string) ([]InternalUse, error) {
	var out []InternalUse
	err := walkPublic(root, func(path string, fset *token.FileSet, f *ast.File) {
		internal := map[string]string{} // local name -> import path
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if !strings.Contains("/"+p+"/", "/internal/") {
				continue
			}
			name := p[strings.LastIndex(p, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			internal[name] = p
		}
		if len(internal) == 0 {
			return
		}
		report := func(decl string, n ast.Node) {
			if n == nil {
				return
			}
			ast.Inspect(n, func(n ast.Node) bool {
				if lit, ok := n.(*ast.FuncLit); ok {
					_ = lit
					return false // a body is not the API
				}
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); ok {
					if p, ok := internal[x.Name]; ok {
						out = append(out, InternalUse{Pos: fset.Position(sel.Pos()).String(), Decl: decl, Type: p + "." + sel.Sel.Name})
					}
				}
				return true
			})
		}
		for _, decl := range f.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() || (d.Recv != nil && !ast.IsExported(receiverType(d.Recv))) {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					name = receiverType(d.Recv) + "." + name
				}
				report(name, d.Type)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								report(n.Name, s.Type)
							}
						}
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						switch t := s.Type.(type) {
						case *ast.StructType:
							for _, field := range t.Fields.List {
								exported := len(field.Names) == 0 && ast.IsExported(typeName(field.Type))
								for _, n := range field.Names {
									exported = exported || n.IsExported()
								}
								if exported {
									report(s.Name.Name+" field", field.Type)
								}
							}
						case *ast.InterfaceType:
							for _, m := range t.Methods.List {
								report(s.Name.Name+" method", m.Type)
							}
						default:
							report(s.Name.Name, s.Type)
						}
					}
				}
			}
		}
	})
	return out, err
}

// walkPublic calls fn for every non-test Go file of a public, non-main
// package under root: it skips directories named internal, testdata or
// node_modules, dot and underscore directories, examples/, and files that
// //go:build ignore keeps out of every ordinary build.
func walkPublic(root string, fn func(path string, fset *token.FileSet, f *ast.File)) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") ||
				name == "testdata" || name == "internal" || name == "node_modules" || rel == "examples") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if f.Name.Name == "main" || buildIgnored(f) {
			return nil // a command, or a file no ordinary build compiles
		}
		fn(rel, fset, f)
		return nil
	})
}

// buildIgnored reports whether a //go:build line at the top of the file
// names the ignore tag.
func buildIgnored(f *ast.File) bool {
	for _, cg := range f.Comments {
		if cg.Pos() >= f.Package {
			break
		}
		for _, c := range cg.List {
			if strings.HasPrefix(c.Text, "//go:build") && strings.Contains(c.Text, "ignore") {
				return true
			}
		}
	}
	return false
}
