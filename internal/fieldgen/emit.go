package fieldgen

import (
	"bytes"
	"fmt"
	"go/types"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// writeType writes a declared type's SnapFields and its two codec methods.
func (g *generator) writeType(b *bytes.Buffer, d declared) {
	recv := receiverName(d.name)
	parts := make([]string, len(d.fields))
	for i, f := range d.fields {
		parts[i] = f.name + " " + f.spec.layout()
	}
	fmt.Fprintf(b, "\n// SnapFields returns %s's wire layout, one \"name kind\" entry per field in wire order\n", d.name)
	fmt.Fprintf(b, "// (game.Declared).\nfunc (%s *%s) SnapFields() string {\nreturn %s\n}\n", recv, d.name, strconv.Quote(strings.Join(parts, ";")))
	write, read := "WriteSnapshot", "ReadSnapshot"
	writer, reader := "*bitmsg.DeltaWriter", "*bitmsg.DeltaReader"
	writeDoc := "(DOOM III §5 WriteToSnapshot)"
	readDoc := "(DOOM III §5 ReadFromSnapshot):\n// every value lands in its declared range, whatever the input"
	if d.message {
		write, read = "WriteMessage", "ReadMessage"
		writer, reader = "*bitmsg.Writer", "*bitmsg.Reader"
		writeDoc = "(game.Message)"
		readDoc = "(game.Message):\n// every value lands in its declared range, whatever the input"
	}
	g.vars = 0
	fmt.Fprintf(b, "\n// %s writes %s's declared fields in order %s.\n", write, d.name, writeDoc)
	fmt.Fprintf(b, "func (%s *%s) %s(w %s) {\n", recv, d.name, write, writer)
	g.writeFields(b, d.fields, recv)
	b.WriteString("}\n")
	g.vars = 0
	fmt.Fprintf(b, "\n// %s reads what %s wrote %s.\n", read, write, readDoc)
	fmt.Fprintf(b, "func (%s *%s) %s(r %s) {\n", recv, d.name, read, reader)
	g.readFields(b, d.fields, recv)
	b.WriteString("}\n")
}

// receiverName is the type name's first letter in lower case, unless that is the writer's or
// the reader's name.
func receiverName(typeName string) string {
	c, _ := utf8.DecodeRuneInString(typeName)
	c = unicode.ToLower(c)
	if c == 'w' || c == 'r' || !unicode.IsLetter(c) {
		return "x"
	}
	return string(c)
}

func (g *generator) writeFields(b *bytes.Buffer, fields []field, parent string) {
	for _, f := range fields {
		g.writeValue(b, f.spec, parent+"."+f.name, parent)
	}
}

func (g *generator) readFields(b *bytes.Buffer, fields []field, parent string) {
	for _, f := range fields {
		g.readValue(b, f.spec, parent+"."+f.name, parent)
	}
}

// conv converts x, of type from, to type to (nothing when they are the same).
func (g *generator) conv(to types.Type, x string, from types.Type) string {
	if types.Identical(to, from) {
		return x
	}
	return g.typeString(to) + "(" + x + ")"
}

// arg is a tag's constant as an argument of type param: verbatim when untyped or of that type.
func (g *generator) arg(c bound, param types.Type) string {
	if b, ok := c.typ.(*types.Basic); (ok && b.Info()&types.IsUntyped != 0) || types.Identical(c.typ, param) {
		return c.expr
	}
	return g.typeString(param) + "(" + c.expr + ")"
}

var (
	tBool    = types.Typ[types.Bool]
	tInt     = types.Typ[types.Int]
	tInt32   = types.Typ[types.Int32]
	tInt64   = types.Typ[types.Int64]
	tUint32  = types.Typ[types.Uint32]
	tUint64  = types.Typ[types.Uint64]
	tFloat32 = types.Typ[types.Float32]
	tString  = types.Typ[types.String]
)

func uintType(width int) types.Type {
	return map[int]types.Type{8: types.Typ[types.Uint8], 16: types.Typ[types.Uint16], 32: tUint32, 64: tUint64}[width]
}

// tempVar returns a new variable name for the method being written.
func (g *generator) tempVar(prefix string) string {
	g.vars++
	return prefix + strconv.Itoa(g.vars)
}

// countExpr is an array's element count: its count field clamped to 0..the array's length.
func countExpr(s *spec, parent, x string) string {
	return fmt.Sprintf("min(max(int(%s.%s), 0), len(%s))", parent, s.count, x)
}

// writeValue writes the statements that write x (declared s; parent is the struct holding it).
func (g *generator) writeValue(b *bytes.Buffer, s *spec, x, parent string) {
	switch s.op {
	case opBool:
		fmt.Fprintf(b, "w.WriteBool(%s)\n", g.conv(tBool, x, s.typ))
	case opUint:
		fmt.Fprintf(b, "w.WriteUint%d(%s)\n", s.width, g.conv(uintType(s.width), x, s.typ))
	case opInt:
		if s.width >= 32 {
			fmt.Fprintf(b, "w.WriteUint%d(%s)\n", s.width, g.conv(uintType(s.width), x, s.typ))
		} else {
			fmt.Fprintf(b, "w.WriteInt(%s, %d)\n", g.conv(tInt32, x, s.typ), s.width)
		}
	case opBits:
		fmt.Fprintf(b, "w.WriteBits(%s, %d)\n", g.conv(tUint32, x, s.typ), s.width)
	case opSBits:
		fmt.Fprintf(b, "w.WriteInt(%s, %d)\n", g.conv(tInt32, x, s.typ), s.width)
	case opRanged:
		fmt.Fprintf(b, "w.WriteRangedInt(%s, %s, %s)\n", g.conv(tInt32, x, s.typ), g.arg(s.lo, tInt32), g.arg(s.hi, tInt32))
	case opFloat:
		fmt.Fprintf(b, "w.WriteFloat(%s)\n", g.conv(tFloat32, x, s.typ))
	case opHalf:
		fmt.Fprintf(b, "w.WriteHalf(%s)\n", g.conv(tFloat32, x, s.typ))
	case opStep:
		g.helpers["snapgenStepIndex"] = true
		fmt.Fprintf(b, "w.WriteRangedInt(snapgenStepIndex(%s, %s, %s, %s, %d), 0, %d)\n", g.conv(tFloat32, x, s.typ),
			g.arg(s.lo, tFloat32), g.arg(s.hi, tFloat32), g.arg(s.step, tFloat32), s.steps, s.steps)
	case opAngle16:
		fmt.Fprintf(b, "w.WriteAngle16(%s)\n", g.conv(tFloat32, x, s.typ))
	case opAngle8:
		fmt.Fprintf(b, "w.WriteAngle8(%s)\n", g.conv(tFloat32, x, s.typ))
	case opString:
		fmt.Fprintf(b, "w.WriteString(%s, %s)\n", g.conv(tString, x, s.typ), g.arg(s.hi, tInt))
	case opArray:
		i := g.tempVar("i")
		if s.count == "" {
			fmt.Fprintf(b, "for %s := range %s {\n", i, x)
		} else {
			n := g.tempVar("n")
			fmt.Fprintf(b, "%s := %s\nfor %s := range %s {\n", n, countExpr(s, parent, x), i, n)
		}
		g.writeValue(b, s.elem, x+"["+i+"]", "")
		b.WriteString("}\n")
	case opStruct:
		g.writeFields(b, s.fields, x)
	}
}

// readValue writes the statements that read x (declared s; parent is the struct holding it).
func (g *generator) readValue(b *bytes.Buffer, s *spec, x, parent string) {
	set := func(format string, args ...any) {
		fmt.Fprintf(b, "%s = %s\n", x, fmt.Sprintf(format, args...))
	}
	switch s.op {
	case opBool:
		set("%s", g.conv(s.typ, "r.ReadBool()", tBool))
	case opUint:
		set("%s", g.conv(s.typ, fmt.Sprintf("r.ReadUint%d()", s.width), uintType(s.width)))
	case opInt:
		switch s.width {
		case 32:
			set("%s", g.conv(s.typ, "int32(r.ReadUint32())", tInt32))
		case 64:
			set("%s", g.conv(s.typ, "int64(r.ReadUint64())", tInt64))
		default:
			set("%s", g.conv(s.typ, fmt.Sprintf("r.ReadInt(%d)", s.width), tInt32))
		}
	case opBits:
		set("%s", g.conv(s.typ, fmt.Sprintf("r.ReadBits(%d)", s.width), tUint32))
	case opSBits:
		set("%s", g.conv(s.typ, fmt.Sprintf("r.ReadInt(%d)", s.width), tInt32))
	case opRanged:
		set("%s", g.conv(s.typ, fmt.Sprintf("r.ReadRangedInt(%s, %s)", g.arg(s.lo, tInt32), g.arg(s.hi, tInt32)), tInt32))
	case opFloat, opHalf:
		call := "r.ReadFloat()"
		if s.op == opHalf {
			call = "r.ReadHalf()"
		}
		if s.bounded {
			g.helpers["snapgenClamp"] = true
			call = fmt.Sprintf("snapgenClamp(%s, %s, %s)", call, g.arg(s.lo, tFloat32), g.arg(s.hi, tFloat32))
		}
		set("%s", g.conv(s.typ, call, tFloat32))
	case opStep:
		g.helpers["snapgenStepValue"] = true
		set("%s", g.conv(s.typ, fmt.Sprintf("snapgenStepValue(r.ReadRangedInt(0, %d), %s, %s, %s)", s.steps,
			g.arg(s.lo, tFloat32), g.arg(s.hi, tFloat32), g.arg(s.step, tFloat32)), tFloat32))
	case opAngle16:
		set("%s", g.conv(s.typ, "r.ReadAngle16()", tFloat32))
	case opAngle8:
		set("%s", g.conv(s.typ, "r.ReadAngle8()", tFloat32))
	case opString:
		set("%s", g.conv(s.typ, fmt.Sprintf("r.ReadString(%s)", g.arg(s.hi, tInt)), tString))
	case opArray:
		i := g.tempVar("i")
		if s.count == "" {
			fmt.Fprintf(b, "for %s := range %s {\n", i, x)
			g.readValue(b, s.elem, x+"["+i+"]", "")
			b.WriteString("}\n")
			return
		}
		n := g.tempVar("n")
		fmt.Fprintf(b, "%s := %s\nfor %s := range %s {\n", n, countExpr(s, parent, x), i, n)
		g.readValue(b, s.elem, x+"["+i+"]", "")
		fmt.Fprintf(b, "}\nclear(%s[%s:])\n", x, n)
	case opStruct:
		g.readFields(b, s.fields, x)
	}
}

// The helpers, written once into the generated file when its code calls them.
var helperSource = map[string]string{
	"snapgenClamp": `
// snapgenClamp returns v clamped into [lo, hi], NaN as 0 clamped: a bounded float read from
// hostile input lands in its declared range.
func snapgenClamp(v, lo, hi float32) float32 {
	if v != v {
		v = 0
	}
	return min(max(v, lo), hi)
}
`,
	"snapgenStepIndex": `
// snapgenStepIndex returns the step of v (clamped into [lo, hi], NaN as 0 clamped) as an index
// in 0..n: the nearest k of lo+k*step.
func snapgenStepIndex(v, lo, hi, step float32, n int32) int32 {
	k := (float64(min(max(v, lo), hi)) - float64(lo)) / float64(step)
	if v != v {
		k = (float64(min(max(0, lo), hi)) - float64(lo)) / float64(step)
	}
	return min(int32(k+0.5), n)
}
`,
	"snapgenStepValue": `
// snapgenStepValue returns the value of step index k: lo+k*step, at most hi.
func snapgenStepValue(k int32, lo, hi, step float32) float32 {
	return min(float32(float64(lo)+float64(k)*float64(step)), hi)
}
`,
}

func (g *generator) writeHelpers(b *bytes.Buffer) {
	for _, name := range []string{"snapgenClamp", "snapgenStepIndex", "snapgenStepValue"} {
		if g.helpers[name] {
			b.WriteString(helperSource[name])
		}
	}
}
