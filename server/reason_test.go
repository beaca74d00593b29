package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/internal/session"
)

// reasonConsts returns the Reason constants declared in file, by name,
// with the expression of each (parsed, not evaluated).
func reasonConsts(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if strings.HasPrefix(n.Name, "Reason") && i < len(vs.Values) {
					out[n.Name] = strconv.Quote(exprString(vs.Values[i]))
				}
			}
		}
	}
	return out
}

func exprString(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.CallExpr:
		if len(e.Args) == 1 {
			return exprString(e.Args[0])
		}
	case *ast.SelectorExpr:
		return exprString(e.X) + "." + e.Sel.Name
	case *ast.Ident:
		return e.Name
	case *ast.BasicLit:
		return e.Value
	}
	return "?"
}

// Every refusal and disconnect reason of the session protocol but "none"
// has its server constant of the same name, made from the session's
// (hence the same value), and the same words; no server constant stands
// for anything else.
func TestReasonsMatchSession(t *testing.T) {
	_, here, _, _ := runtime.Caller(0)
	sess := reasonConsts(t, filepath.Join(filepath.Dir(here), "..", "internal", "session", "proto.go"))
	srv := reasonConsts(t, filepath.Join(filepath.Dir(here), "reason.go"))
	if len(sess) < 20 {
		t.Fatalf("found %d session reasons; the parse is broken", len(sess))
	}
	for name := range sess {
		if name == "ReasonNone" {
			if _, ok := srv[name]; ok {
				t.Errorf("server exports ReasonNone, which no refusal or drop carries")
			}
			continue
		}
		if got, want := srv[name], strconv.Quote("session."+name); got != want {
			t.Errorf("server.%s = %s, want Reason(%s)", name, got, want)
		}
	}
	for name := range srv {
		if _, ok := sess[name]; !ok {
			t.Errorf("server.%s has no session reason of that name", name)
		}
	}
	all := []Reason{ReasonClientLeft, ReasonKicked, ReasonTimeout, ReasonShutdown, ReasonProtocolError,
		ReasonServerFull, ReasonWrongVersion, ReasonWrongRegistry, ReasonWrongPassword, ReasonBadCookie,
		ReasonTokenRequired, ReasonTokenExpired, ReasonTokenNotYetValid, ReasonTokenWrongProto,
		ReasonTokenWrongServer, ReasonTokenInvalid, ReasonTokenReused, ReasonTokenOtherAddress,
		ReasonTokenUnsupported, ReasonTooManyAttempts, ReasonTooManyFromIP, ReasonMessageFlood, ReasonNoSuchMatch}
	if len(all) != len(srv) {
		t.Fatalf("the list above has %d reasons, reason.go %d", len(all), len(srv))
	}
	seen := map[Reason]bool{}
	for _, r := range all {
		if r.String() != session.Reason(r).String() || r.String() == "" || strings.HasPrefix(r.String(), "reason ") {
			t.Errorf("Reason(%d).String() = %q, session says %q", r, r.String(), session.Reason(r).String())
		}
		if seen[r] {
			t.Errorf("Reason %d twice", r)
		}
		seen[r] = true
	}
}
