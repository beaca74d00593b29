package fieldgen

import (
	"regexp"
	"strings"
	"testing"
)

// gen generates p.go, a one-file package p that imports nothing (so no go list runs).
func gen(t *testing.T, src string) (string, error) {
	t.Helper()
	out, err := generate("x", ".", map[string][]byte{"p.go": []byte("package p\n\n" + src)})
	return string(out), err
}

// TestErrors: unknown and contradictory tags, and what cannot be declared, are errors that name
// the file and line.
func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		src, want string
	}{
		{"//snap:entity\ntype T struct {\n\tA int32 `snap:\"bitz=3\"`\n}", `p.go:5:2: unknown tag "bitz"`},
		{"//snap:entity\ntype T struct {\n\tA int32 `snap:\"bits=3,min=0,max=5\"`\n}", "p.go:5:2: an integer with bits= does not take min"},
		{"//snap:entity\ntype T struct {\n\tA int32 `snap:\"min=5,max=5\"`\n}", "p.go:5:2: min=5 (5) is not below max=5"},
		{"//snap:entity\ntype T struct {\n\tA int32 `snap:\"min=0\"`\n}", "p.go:5:2: a ranged integer needs both min= and max="},
		{"//snap:entity\ntype T struct {\n\tA uint8 `snap:\"min=0,max=300\"`\n}", "p.go:5:2: min=0, max=300: outside the values of uint8"},
		{"//snap:entity\ntype T struct {\n\tA uint8 `snap:\"bits=9\"`\n}", "p.go:5:2: bits=9: uint8 takes 1..8 bits"},
		{"//snap:entity\ntype T struct {\n\tA int32 `snap:\"bits=1\"`\n}", "p.go:5:2: bits=1: int32 takes 2..32 bits"},
		{"//snap:entity\ntype T struct {\n\tA int\n}", "p.go:5:2: int has no fixed width"},
		{"//snap:entity\ntype T struct {\n\tA float64\n}", "p.go:5:2: type float64 cannot be declared"},
		{"//snap:entity\ntype T struct {\n\tA float32 `snap:\"half,angle16\"`\n}", "p.go:5:2: half, angle16, angle8 and step exclude each other"},
		{"//snap:entity\ntype T struct {\n\tA float32 `snap:\"step=1\"`\n}", "p.go:5:2: step= needs min= and max="},
		{"//snap:entity\ntype T struct {\n\tA float32 `snap:\"min=0,max=1,step=0.3\"`\n}", "p.go:5:2: step=0.3: (max-min)/step must be a whole number"},
		{"//snap:entity\ntype T struct {\n\tA float32 `snap:\"angle8,min=0,max=1\"`\n}", "p.go:5:2: an angle takes no min= or max="},
		{"//snap:entity\ntype T struct {\n\tA float32 `snap:\"min=0,max=Nope\"`\n}", "p.go:5:2: max=Nope: undefined: Nope"},
		{"var v = 3\n\n//snap:entity\ntype T struct {\n\tA int32 `snap:\"min=0,max=v\"`\n}", "p.go:7:2: max=v: not a constant"},
		{"//snap:entity\ntype T struct {\n\tA string\n}", "p.go:5:2: a string needs max="},
		{"//snap:entity\ntype T struct {\n\tA bool `snap:\"bits=1\"`\n}", "p.go:5:2: bool does not take bits"},
		{"//snap:entity\ntype T struct {\n\tA [4]int32 `snap:\"len=N\"`\n}", "p.go:5:2: len=N: no earlier field N"},
		{"//snap:entity\ntype T struct {\n\tA [4]int32 `snap:\"len=B\"`\n\tB int32\n}", "p.go:5:2: len=B: no earlier field B"},
		{"//snap:entity\ntype T struct {\n\tB bool\n\tA [4]int32 `snap:\"len=B\"`\n}", "p.go:6:2: len=B: B is not an integer field"},
		{"type E uint8\n\n//snap:entity\ntype T struct {\n\tA E `snap:\"enum\"`\n}", "p.go:7:2: enum: E has fewer than two constants"},
		{"//snap:entity\ntype T struct {\n\tA int32 `snap:\"-,bits=3\"`\n}", "p.go:5:2: - takes no other tag"},
		{"//snap:entity\ntype T struct {\n\tA int32 `snap:\"half\"`\n}", "p.go:5:2: an integer does not take half"},
		{"//snap:entity\ntype T struct {\n\tA int32 `snap:\"bits=3,bits=4\"`\n}", "p.go:5:2: bits given twice"},
		{"//snap:entity\ntype T struct {\n\tA map[int]int\n}", "p.go:5:2: type map[int]int cannot be declared"},
		{"type U struct{ A int32 }\n\n//snap:entity\ntype T struct {\n\tU\n}", "p.go:7:2: an embedded field cannot be declared"},
		{"//snap:entiti\ntype T struct{ A bool }", "p.go:3:1: unknown directive //snap:entiti"},
		{"//snap:entity\ntype T int32", "p.go:4:6: T: //snap:entity marks struct types only"},
		{"//snap:entity\ntype T struct{ A int32 `snap:\"-\"` }", "p.go:4:6: T: no field to send"},
		{"type T struct{ A bool }", "no struct type marked //snap:entity or //snap:message"},
		{"type S struct {\n\tA int\n}\n\n//snap:entity\ntype T struct {\n\tS S\n}", "p.go:4:2: T.S.A: int has no fixed width"},
	} {
		// The position first, then the field's path (T.A), then the message.
		pos, msg, ok := strings.Cut(tc.want, ": ")
		if ok && strings.HasPrefix(pos, "p.go:") {
			pos = "x/" + pos
		} else {
			pos, msg = "", tc.want
		}
		_, err := gen(t, tc.src)
		if err == nil || !strings.HasPrefix(err.Error(), pos) || !strings.Contains(err.Error(), msg) {
			t.Errorf("%q:\ngot  %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

var snapFieldsRE = regexp.MustCompile(`SnapFields\(\) string \{\n\treturn ("[^\n]*")`)

// TestLayoutChanges: SnapFields changes with every name, kind, width, bound (also through a
// constant's value) and order; and a declaration that changes none of them keeps it.
func TestLayoutChanges(t *testing.T) {
	const base = "const Max = 200\n\n//snap:entity\ntype T struct {\n\tHP int32 `snap:\"min=0,max=Max\"`\n\tX float32 `snap:\"min=0,max=64\"`\n\tOn bool\n}"
	variants := []struct{ name, old, new string }{
		{"name", "On bool", "Lit bool"},
		{"kind", "X float32 `snap:\"min=0,max=64\"`", "X float32 `snap:\"half,min=0,max=64\"`"},
		{"width", "HP int32 `snap:\"min=0,max=Max\"`", "HP int32 `snap:\"bits=9\"`"},
		{"bound", "max=64", "max=128"},
		{"constant", "Max = 200", "Max = 201"},
		{"order", "\tX float32 `snap:\"min=0,max=64\"`\n\tOn bool", "\tOn bool\n\tX float32 `snap:\"min=0,max=64\"`"},
		{"step", "min=0,max=64", "min=0,max=64,step=0.5"},
	}
	layout := func(src string) string {
		out, err := gen(t, src)
		if err != nil {
			t.Fatal(err)
		}
		m := snapFieldsRE.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("no SnapFields in\n%s", out)
		}
		return m[1]
	}
	want := `"HP int[0,200];X float[0,64];On bool"`
	if got := layout(base); got != want {
		t.Fatalf("layout %s, want %s", got, want)
	}
	seen := map[string]string{want: "base"}
	for _, v := range variants {
		if !strings.Contains(base, v.old) {
			t.Fatalf("%s: %q not in the base", v.name, v.old)
		}
		l := layout(strings.Replace(base, v.old, v.new, 1))
		if prev, ok := seen[l]; ok {
			t.Errorf("%s: layout %s, the same as %s's", v.name, l, prev)
		}
		seen[l] = v.name
	}
	// Same wire, same layout: a comment, a same-valued constant expression.
	if l := layout(strings.Replace(base, "max=Max", "max=2*100", 1)); l != want {
		t.Errorf("max=2*100: layout %s, want %s", l, want)
	}
}

// TestGeneratedCode: the code of a small declaration, exactly (the conversions of named types
// and typed constants, the helpers only when used, the message methods).
func TestGeneratedCode(t *testing.T) {
	out, err := gen(t, "type Kind uint8\n\nconst (\n\tA Kind = iota\n\tB\n)\n\nconst Lim int16 = 9\n\n//snap:message\ntype M struct {\n\tK Kind `snap:\"enum\"`\n\tN int16 `snap:\"min=-Lim,max=Lim\"`\n}")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"// Code generated by snapgen from the //snap:entity and //snap:message types of package p; DO NOT EDIT.\n",
		"import \"github.com/snapwire/snapwire/bitmsg\"\n",
		"func (m *M) WriteMessage(w *bitmsg.Writer) {\n\tw.WriteRangedInt(int32(m.K), 0, 1)\n\tw.WriteRangedInt(int32(m.N), int32(-Lim), int32(Lim))\n}",
		"func (m *M) ReadMessage(r *bitmsg.Reader) {\n\tm.K = Kind(r.ReadRangedInt(0, 1))\n\tm.N = int16(r.ReadRangedInt(int32(-Lim), int32(Lim)))\n}",
		"return \"K enum[0,1];N int[-9,9]\"",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing\n%s\nin\n%s", want, out)
		}
	}
	if strings.Contains(out, "snapgenClamp") {
		t.Errorf("an unused helper is written:\n%s", out)
	}
}
