package client

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/internal/session"
)

// reasonConsts returns the names of the constants named Reason* declared in
// the Go files of dir (tests left out), with their expressions' source.
func reasonConsts(t *testing.T, dir string) map[string]ast.Expr {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]ast.Expr{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.CONST {
				continue
			}
			for _, s := range g.Specs {
				vs := s.(*ast.ValueSpec)
				for i, n := range vs.Names {
					if strings.HasPrefix(n.Name, "Reason") && i < len(vs.Values) {
						out[n.Name] = vs.Values[i]
					}
				}
			}
		}
	}
	return out
}

// TestReasonsFollowSession: every reason of package session has a constant
// of the same name here, defined as Reason(session.<name>) so the values
// cannot diverge, and none is extra; each reads the same as session's.
func TestReasonsFollowSession(t *testing.T) {
	ours := reasonConsts(t, ".")
	theirs := reasonConsts(t, "../internal/session")
	if len(theirs) == 0 {
		t.Fatal("no Reason constants found in internal/session")
	}
	for name := range theirs {
		e, ok := ours[name]
		if !ok {
			t.Errorf("session.%s has no client.%s", name, name)
			continue
		}
		call, ok := e.(*ast.CallExpr)
		if !ok || len(call.Args) != 1 {
			t.Errorf("client.%s is not Reason(session.%s)", name, name)
			continue
		}
		fn, _ := call.Fun.(*ast.Ident)
		sel, _ := call.Args[0].(*ast.SelectorExpr)
		if fn == nil || fn.Name != "Reason" || sel == nil || sel.Sel.Name != name {
			t.Errorf("client.%s is not Reason(session.%s)", name, name)
			continue
		}
		if x, _ := sel.X.(*ast.Ident); x == nil || x.Name != "session" {
			t.Errorf("client.%s is not Reason(session.%s)", name, name)
		}
	}
	for name := range ours {
		if _, ok := theirs[name]; !ok {
			t.Errorf("client.%s has no session.%s", name, name)
		}
	}
	for r := range 256 {
		if got, want := Reason(r).String(), session.Reason(r).String(); got != want {
			t.Errorf("Reason(%d) reads %q, session's %q", r, got, want)
		}
	}
	if ReasonServerFull.String() != "server full" {
		t.Errorf("ReasonServerFull reads %q", ReasonServerFull)
	}
}
