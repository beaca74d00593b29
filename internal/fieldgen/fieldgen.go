// Package fieldgen writes the snapshot and message codecs of a game's declared fields: the
// logic of the snapgen command (go run github.com/snapwire/snapwire/snapgen).
//
// A game declares an entity's or a state's networked fields once, as a Go struct marked with a
// //snap:entity directive, or a game message's as one marked //snap:message, and tags the fields
// (`snap:"min=0,max=MaxHealth"`). The generator reads the package with go/parser and go/types
// and writes, into one file (OutputName), plain Go: WriteSnapshot and ReadSnapshot (entities and
// states, on bitmsg's DeltaWriter and DeltaReader), WriteMessage and ReadMessage (messages, on
// Writer and Reader: game.Message), and SnapFields (game.Declared), the layout string. No
// reflection, no allocation except ReadString's. This is the "declared, not written twice"
// idea of Lightyear's derive, Colyseus' schema and Netcode for Entities' [GhostField], and of
// ioq3's netField_t tables (msg.c entityStateFields) whose order is the wire order.
//
// Fields go on the wire in declaration order. The tags are listed in the snapgen command's doc
// (snapgen/main.go).
package fieldgen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/format"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
)

// OutputName is the generated file's name, in the package's directory.
const OutputName = "snap_gen.go"

// The directives that mark a struct type (a comment line of its own in the type's doc).
const (
	entityDirective  = "//snap:entity"  // an entity or a non-PVS state: WriteSnapshot, ReadSnapshot
	messageDirective = "//snap:message" // a game message: WriteMessage, ReadMessage
)

// Generate returns the generated file for the package in dir: the codecs of its declared types,
// formatted.
func Generate(dir string) ([]byte, error) {
	files, err := readPackage(dir)
	if err != nil {
		return nil, err
	}
	return generate(dir, dir, files)
}

// Check regenerates the package in dir in memory and returns an error naming the generated file
// when the file on disk differs from what the declarations produce (stale) or is missing.
func Check(dir string) error { return check(dir, dir) }

// check is Check with the imports listed in listDir.
func check(dir, listDir string) error {
	files, err := readPackage(dir)
	if err != nil {
		return err
	}
	want, err := generate(dir, listDir, files)
	if err != nil {
		return err
	}
	name := filepath.Join(dir, OutputName)
	got, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("%s: %w (run go generate)", name, err)
	}
	if !bytes.Equal(got, want) {
		return fmt.Errorf("%s is stale: its declarations have changed since it was generated (run go generate)", name)
	}
	return nil
}

// declared is a marked struct type.
type declared struct {
	name    string
	message bool
	fields  []field
}

type generator struct {
	l       *loaded
	imports map[string]string // path -> name, of the packages the code names
	helpers map[string]bool   // the helper functions the code calls
	vars    int               // temporary variables so far in the method being written
}

func generate(dir, listDir string, files map[string][]byte) ([]byte, error) {
	l, err := load(dir, listDir, files)
	if err != nil {
		return nil, err
	}
	g := &generator{l: l, imports: map[string]string{"github.com/snapwire/snapwire/bitmsg": "bitmsg"}, helpers: map[string]bool{}}
	var types []declared
	for _, f := range l.files {
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range gd.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok {
					continue
				}
				d, ok, err := g.declaredType(gd, ts)
				if err != nil {
					return nil, err
				}
				if ok {
					types = append(types, d)
				}
			}
		}
	}
	if len(types) == 0 {
		return nil, fmt.Errorf("%s: no struct type marked %s or %s", dir, entityDirective, messageDirective)
	}
	return g.file(types)
}

// declaredType returns the type's declaration when its doc carries a directive.
func (g *generator) declaredType(gd *ast.GenDecl, ts *ast.TypeSpec) (declared, bool, error) {
	doc := ts.Doc
	if doc == nil && len(gd.Specs) == 1 {
		doc = gd.Doc
	}
	d := declared{name: ts.Name.Name}
	found := false
	if doc != nil {
		for _, c := range doc.List {
			text := strings.TrimRight(c.Text, " \t")
			if !strings.HasPrefix(text, "//snap:") {
				continue
			}
			pos := g.l.fset.Position(c.Pos())
			switch {
			case found:
				return d, false, fmt.Errorf("%s: %s: a second directive %s", pos, d.name, text)
			case text == entityDirective:
			case text == messageDirective:
				d.message = true
			default:
				return d, false, fmt.Errorf("%s: unknown directive %s (%s or %s)", pos, text, entityDirective, messageDirective)
			}
			found = true
		}
	}
	if !found {
		return d, false, nil
	}
	pos := g.l.fset.Position(ts.Pos())
	if ts.TypeParams != nil {
		return d, false, fmt.Errorf("%s: %s: a generic type cannot be declared", pos, d.name)
	}
	obj := g.l.pkg.Scope().Lookup(d.name)
	if obj == nil {
		return d, false, fmt.Errorf("%s: %s: not a package-level type", pos, d.name)
	}
	st, ok := obj.Type().Underlying().(*types.Struct)
	if !ok {
		return d, false, fmt.Errorf("%s: %s: %s marks struct types only", pos, d.name, entityDirective)
	}
	fields, err := g.structFields(st, 0)
	if fe, ok := err.(*fieldError); ok {
		fe.path = d.name + "." + fe.path
		return d, false, fe
	} else if err != nil {
		return d, false, err
	}
	if len(fields) == 0 {
		return d, false, fmt.Errorf("%s: %s: no field to send", pos, d.name)
	}
	d.fields = fields
	return d, true, nil
}

// fieldError is a declaration error: the field's position, its path from the declared type
// (T.A.B) and what is wrong.
type fieldError struct {
	pos  token.Position
	path string
	msg  string
}

func (e *fieldError) Error() string { return e.pos.String() + ": " + e.path + ": " + e.msg }

// structFields returns the encodings of a struct's fields in order, leaving out `snap:"-"`.
func (g *generator) structFields(st *types.Struct, depth int) ([]field, error) {
	var fields []field
	var earlier []*types.Var
	for i := range st.NumFields() {
		v := st.Field(i)
		tag, _ := lookupTag(st.Tag(i))
		fail := func(format string, args ...any) error {
			return &fieldError{pos: g.l.fset.Position(v.Pos()), path: v.Name(), msg: fmt.Sprintf(format, args...)}
		}
		t, err := parseTags(tag)
		if err != nil {
			return nil, fail("%v", err)
		}
		if t.has("-") {
			if len(t.order) > 1 {
				return nil, fail("- takes no other tag")
			}
			continue
		}
		if v.Embedded() {
			return nil, fail("an embedded field cannot be declared (name it, or tag it `snap:\"-\"`)")
		}
		if v.Type() == types.Typ[types.Invalid] {
			return nil, fail("the type does not compile")
		}
		s, err := g.specOf(v.Type(), t, earlier, depth)
		if fe, ok := err.(*fieldError); ok {
			fe.path = v.Name() + "." + fe.path // in a nested struct
			return nil, fe
		} else if err != nil {
			return nil, fail("%v", err)
		}
		fields = append(fields, field{name: v.Name(), spec: s})
		earlier = append(earlier, v)
	}
	return fields, nil
}

// lookupTag returns the value of the snap key of a struct tag.
func lookupTag(tag string) (string, bool) {
	return reflect.StructTag(tag).Lookup("snap")
}

// typeString names a type as the generated file writes it, recording the imports it needs.
func (g *generator) typeString(t types.Type) string {
	return types.TypeString(t, func(p *types.Package) string {
		if p == g.l.pkg {
			return ""
		}
		g.imports[p.Path()] = p.Name()
		return p.Name()
	})
}

// file writes the generated file.
func (g *generator) file(decls []declared) ([]byte, error) {
	var body bytes.Buffer
	for _, d := range decls {
		g.writeType(&body, d)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by snapgen from the %s and %s types of package %s; DO NOT EDIT.\n\n", entityDirective, messageDirective, g.l.pkg.Name())
	fmt.Fprintf(&b, "package %s\n\n", g.l.pkg.Name())
	paths := make([]string, 0, len(g.imports))
	for p := range g.imports {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	if len(paths) == 1 {
		fmt.Fprintf(&b, "import %q\n", paths[0])
	} else {
		b.WriteString("import (\n")
		for _, p := range paths {
			fmt.Fprintf(&b, "%q\n", p)
		}
		b.WriteString(")\n")
	}
	b.Write(body.Bytes())
	g.writeHelpers(&b)
	src, err := format.Source(b.Bytes())
	if err != nil {
		return nil, fmt.Errorf("fieldgen: the generated code does not parse (a bug): %v\n%s", err, b.Bytes())
	}
	return src, nil
}
