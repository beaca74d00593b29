package fieldgen

import (
	"fmt"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"strconv"
	"strings"
)

// op is how a field is written: which bitmsg method, and so its encoding on the wire.
type op int

const (
	opBool    op = iota // WriteBool
	opUint              // WriteUint8/16/32/64 by width, the default of unsigned integers
	opInt               // WriteInt(v, width) (32 and 64 as WriteUint32/64), the default of signed integers
	opBits              // WriteBits(v, bits): `bits=N` on an unsigned integer
	opSBits             // WriteInt(v, bits): `bits=N` on a signed integer
	opRanged            // WriteRangedInt(v, min, max): `min=,max=` on an integer, or `enum`
	opFloat             // WriteFloat, clamped into [min,max] on read when bounded
	opHalf              // WriteHalf, clamped into [min,max] on read when bounded
	opStep              // the step index in [0,n] as WriteRangedInt: `min=,max=,step=`
	opAngle16           // WriteAngle16
	opAngle8            // WriteAngle8
	opString            // WriteString(s, max)
	opArray             // a fixed-size array, all elements or the first `len=` of them
	opStruct            // a nested struct, its fields in order
)

// spec is a field's declared encoding.
type spec struct {
	op      op
	typ     types.Type // the Go type of the value
	width   int        // opUint, opInt: the type's width; opBits, opSBits: the bits
	bounded bool       // opFloat, opHalf: clamped into [lo,hi] on read
	enum    bool       // opRanged from `enum`
	lo, hi  bound      // opRanged, opFloat, opHalf, opStep; hi is the max length of opString
	step    bound      // opStep
	steps   int64      // opStep: (hi-lo)/step
	length  int64      // opArray: the array's length
	count   string     // opArray: the earlier field holding the element count, or ""
	elem    *spec      // opArray: the elements
	fields  []field    // opStruct
}

// bound is a constant of a tag: the expression as written (emitted verbatim) and its value.
type bound struct {
	expr  string
	typ   types.Type // the constant's type (untyped for literals and untyped constants)
	value constant.Value
}

type field struct {
	name string
	spec *spec
}

// tagItems splits a `snap` tag into its items: "key" or "key=value", comma-separated (commas
// inside parentheses belong to the value).
func tagItems(tag string) ([][2]string, error) {
	var items [][2]string
	depth, start := 0, 0
	for i := 0; i <= len(tag); i++ {
		if i < len(tag) {
			switch tag[i] {
			case '(':
				depth++
				continue
			case ')':
				depth--
				continue
			case ',':
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		item := strings.TrimSpace(tag[start:i])
		start = i + 1
		if item == "" {
			return nil, fmt.Errorf("empty item in tag %q", tag)
		}
		k, v, hasValue := strings.Cut(item, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if hasValue && v == "" {
			return nil, fmt.Errorf("%s= without a value", k)
		}
		for _, it := range items {
			if it[0] == k {
				return nil, fmt.Errorf("%s given twice", k)
			}
		}
		items = append(items, [2]string{k, v})
	}
	return items, nil
}

// tags is a field's parsed `snap` tag.
type tags struct {
	items map[string]string
	order []string
}

func parseTags(tag string) (tags, error) {
	t := tags{items: map[string]string{}}
	if tag == "" {
		return t, nil
	}
	items, err := tagItems(tag)
	if err != nil {
		return t, err
	}
	for _, it := range items {
		switch it[0] {
		case "bits", "min", "max", "step", "len":
			if it[1] == "" {
				return t, fmt.Errorf("%s needs a value (%s=...)", it[0], it[0])
			}
		case "half", "angle16", "angle8", "enum", "-":
			if it[1] != "" {
				return t, fmt.Errorf("%s takes no value", it[0])
			}
		default:
			return t, fmt.Errorf("unknown tag %q (known: bits, min, max, step, half, angle16, angle8, enum, len, -)", it[0])
		}
		t.items[it[0]] = it[1]
		t.order = append(t.order, it[0])
	}
	return t, nil
}

func (t tags) has(k string) bool { _, ok := t.items[k]; return ok }

// only fails when the tag has an item outside allowed: what is declared but has no meaning for
// the field's type is an error, not ignored.
func (t tags) only(what string, allowed ...string) error {
	for _, k := range t.order {
		ok := false
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok {
			return fmt.Errorf("%s does not take %s", what, k)
		}
	}
	return nil
}

// specOf returns the encoding of a value of type typ with tags t. earlier are the struct's
// fields before this one (a len= count is one of them); an array's other tags are its
// elements'.
func (g *generator) specOf(typ types.Type, t tags, earlier []*types.Var, depth int) (*spec, error) {
	if depth > 16 {
		return nil, fmt.Errorf("nested more than 16 deep")
	}
	switch u := typ.Underlying().(type) {
	case *types.Basic:
		return g.basicSpec(typ, u, t)
	case *types.Array:
		if t.has("len") {
			if err := g.checkCount(t.items["len"], earlier, u.Len()); err != nil {
				return nil, err
			}
		}
		elemTags := tags{items: map[string]string{}}
		for _, k := range t.order {
			if k != "len" {
				elemTags.items[k] = t.items[k]
				elemTags.order = append(elemTags.order, k)
			}
		}
		elem, err := g.specOf(u.Elem(), elemTags, nil, depth+1)
		if err != nil {
			return nil, err
		}
		return &spec{op: opArray, typ: typ, length: u.Len(), count: t.items["len"], elem: elem}, nil
	case *types.Struct:
		if err := t.only("a nested struct"); err != nil {
			return nil, err
		}
		fields, err := g.structFields(u, depth+1)
		if err != nil {
			return nil, err
		}
		return &spec{op: opStruct, typ: typ, fields: fields}, nil
	}
	return nil, fmt.Errorf("type %s cannot be declared (bool, integers, float32, string, arrays and structs can)", g.typeString(typ))
}

// checkCount checks a len= count: an earlier integer field of the same struct.
func (g *generator) checkCount(name string, earlier []*types.Var, length int64) error {
	for _, v := range earlier {
		if v.Name() != name {
			continue
		}
		if b, ok := v.Type().Underlying().(*types.Basic); ok && b.Info()&types.IsInteger != 0 {
			return nil
		}
		return fmt.Errorf("len=%s: %s is not an integer field", name, name)
	}
	return fmt.Errorf("len=%s: no earlier field %s in the struct (the count is read before the array)", name, name)
}

func (g *generator) basicSpec(typ types.Type, b *types.Basic, t tags) (*spec, error) {
	info := b.Info()
	switch {
	case b.Kind() == types.Bool:
		return &spec{op: opBool, typ: typ}, t.only("bool")
	case info&types.IsString != 0:
		if err := t.only("a string", "max"); err != nil {
			return nil, err
		}
		if !t.has("max") {
			return nil, fmt.Errorf("a string needs max= (its maximum length in bytes)")
		}
		hi, err := g.intBound(t.items["max"], "max")
		if err != nil {
			return nil, err
		}
		if n, _ := constant.Int64Val(hi.value); n < 1 || n > 1<<20 {
			return nil, fmt.Errorf("max=%s: a string's max length must be in 1..%d", hi.expr, 1<<20)
		}
		return &spec{op: opString, typ: typ, hi: hi}, nil
	case info&types.IsInteger != 0:
		return g.intSpec(typ, b, t)
	case b.Kind() == types.Float32:
		return g.floatSpec(typ, t)
	}
	return nil, fmt.Errorf("type %s cannot be declared (float64: use float32; int and uint: a sized type or bits=)", g.typeString(typ))
}

// intWidth is the width of a sized integer kind, 0 for int, uint and uintptr.
func intWidth(b *types.Basic) int {
	switch b.Kind() {
	case types.Int8, types.Uint8:
		return 8
	case types.Int16, types.Uint16:
		return 16
	case types.Int32, types.Uint32:
		return 32
	case types.Int64, types.Uint64:
		return 64
	}
	return 0
}

func (g *generator) intSpec(typ types.Type, b *types.Basic, t tags) (*spec, error) {
	signed := b.Info()&types.IsUnsigned == 0
	width := intWidth(b)
	switch {
	case t.has("enum"):
		if err := t.only("an enum", "enum"); err != nil {
			return nil, err
		}
		return g.enumSpec(typ)
	case t.has("bits"):
		if err := t.only("an integer with bits=", "bits"); err != nil {
			return nil, err
		}
		v, err := g.intBound(t.items["bits"], "bits")
		if err != nil {
			return nil, err
		}
		n, _ := constant.Int64Val(v.value)
		lo := int64(1)
		if signed {
			lo = 2
		}
		hi := int64(32)
		if width != 0 && width < 32 {
			hi = int64(width)
		}
		if n < lo || n > hi {
			return nil, fmt.Errorf("bits=%s: %s takes %d..%d bits", v.expr, g.typeString(typ), lo, hi)
		}
		if signed {
			return &spec{op: opSBits, typ: typ, width: int(n)}, nil
		}
		return &spec{op: opBits, typ: typ, width: int(n)}, nil
	case t.has("min") || t.has("max"):
		if err := t.only("a ranged integer", "min", "max"); err != nil {
			return nil, err
		}
		if !t.has("min") || !t.has("max") {
			return nil, fmt.Errorf("a ranged integer needs both min= and max=")
		}
		lo, err := g.intBound(t.items["min"], "min")
		if err != nil {
			return nil, err
		}
		hi, err := g.intBound(t.items["max"], "max")
		if err != nil {
			return nil, err
		}
		l, _ := constant.Int64Val(lo.value)
		h, _ := constant.Int64Val(hi.value)
		if l >= h {
			return nil, fmt.Errorf("min=%s (%d) is not below max=%s (%d)", lo.expr, l, hi.expr, h)
		}
		if l < math.MinInt32 || h > math.MaxInt32 {
			return nil, fmt.Errorf("min=%s, max=%s: ranged integers are within int32", lo.expr, hi.expr)
		}
		if !representable(l, b) || !representable(h, b) {
			return nil, fmt.Errorf("min=%s, max=%s: outside the values of %s", lo.expr, hi.expr, g.typeString(typ))
		}
		return &spec{op: opRanged, typ: typ, lo: lo, hi: hi}, nil
	}
	if err := t.only("an integer"); err != nil {
		return nil, err
	}
	if width == 0 {
		return nil, fmt.Errorf("%s has no fixed width: use a sized type (int32, uint16, ...) or bits=, or min= and max=", g.typeString(typ))
	}
	if signed {
		return &spec{op: opInt, typ: typ, width: width}, nil
	}
	return &spec{op: opUint, typ: typ, width: width}, nil
}

// representable reports whether n is a value of the integer kind b.
func representable(n int64, b *types.Basic) bool {
	width := intWidth(b)
	if width == 0 {
		width = 64
	}
	if b.Info()&types.IsUnsigned != 0 {
		return n >= 0 && (width == 64 || n < 1<<width)
	}
	return width == 64 || (n >= -(1<<(width-1)) && n < 1<<(width-1))
}

// enumSpec: an enum is a named integer type; its range is its constants' (of its own package).
func (g *generator) enumSpec(typ types.Type) (*spec, error) {
	named, ok := typ.(*types.Named)
	if !ok {
		return nil, fmt.Errorf("enum: %s is not a named integer type", g.typeString(typ))
	}
	scope := named.Obj().Pkg().Scope()
	var lo, hi constant.Value
	for _, name := range scope.Names() {
		c, ok := scope.Lookup(name).(*types.Const)
		if !ok || !types.Identical(c.Type(), typ) {
			continue
		}
		v := c.Val()
		if lo == nil || constant.Compare(v, token.LSS, lo) {
			lo = v
		}
		if hi == nil || constant.Compare(v, token.GTR, hi) {
			hi = v
		}
	}
	if lo == nil || constant.Compare(lo, token.EQL, hi) {
		return nil, fmt.Errorf("enum: %s has fewer than two constants in package %s", g.typeString(typ), named.Obj().Pkg().Name())
	}
	l, _ := constant.Int64Val(lo)
	h, _ := constant.Int64Val(hi)
	if l < math.MinInt32 || h > math.MaxInt32 {
		return nil, fmt.Errorf("enum: %s's constants are outside int32", g.typeString(typ))
	}
	return &spec{op: opRanged, enum: true, typ: typ,
		lo: bound{expr: strconv.FormatInt(l, 10), typ: types.Typ[types.UntypedInt], value: lo},
		hi: bound{expr: strconv.FormatInt(h, 10), typ: types.Typ[types.UntypedInt], value: hi}}, nil
}

func (g *generator) floatSpec(typ types.Type, t tags) (*spec, error) {
	if err := t.only("a float32", "half", "angle16", "angle8", "min", "max", "step"); err != nil {
		return nil, err
	}
	formats := 0
	for _, k := range []string{"half", "angle16", "angle8", "step"} {
		if t.has(k) {
			formats++
		}
	}
	if formats > 1 {
		return nil, fmt.Errorf("half, angle16, angle8 and step exclude each other")
	}
	if t.has("angle16") || t.has("angle8") {
		if t.has("min") || t.has("max") {
			return nil, fmt.Errorf("an angle takes no min= or max= (it is in [0,360))")
		}
		if t.has("angle8") {
			return &spec{op: opAngle8, typ: typ}, nil
		}
		return &spec{op: opAngle16, typ: typ}, nil
	}
	s := &spec{op: opFloat, typ: typ}
	if t.has("half") {
		s.op = opHalf
	}
	if !t.has("min") && !t.has("max") {
		if t.has("step") {
			return nil, fmt.Errorf("step= needs min= and max=")
		}
		return s, nil
	}
	if !t.has("min") || !t.has("max") {
		return nil, fmt.Errorf("a bounded float needs both min= and max=")
	}
	var err error
	if s.lo, err = g.floatBound(t.items["min"], "min"); err != nil {
		return nil, err
	}
	if s.hi, err = g.floatBound(t.items["max"], "max"); err != nil {
		return nil, err
	}
	lo, hi := float32Of(s.lo.value), float32Of(s.hi.value)
	if !(lo < hi) || math.IsInf(float64(lo), 0) || math.IsInf(float64(hi), 0) {
		return nil, fmt.Errorf("min=%s, max=%s: not finite float32 values with min below max", s.lo.expr, s.hi.expr)
	}
	s.bounded = true
	if !t.has("step") {
		return s, nil
	}
	if s.step, err = g.floatBound(t.items["step"], "step"); err != nil {
		return nil, err
	}
	step := float64(float32Of(s.step.value))
	n := (float64(hi) - float64(lo)) / step
	if !(step > 0) || n > math.MaxInt32 || math.Abs(n-math.Round(n)) > 1e-6*n || math.Round(n) < 1 {
		return nil, fmt.Errorf("step=%s: (max-min)/step must be a whole number in 1..%d (it is %g)", s.step.expr, math.MaxInt32, n)
	}
	s.op, s.steps = opStep, int64(math.Round(n))
	return s, nil
}

func float32Of(v constant.Value) float32 {
	f, _ := constant.Float64Val(constant.ToFloat(v))
	return float32(f)
}

// constBound evaluates a tag's value, a constant expression in the package's scope.
func (g *generator) constBound(expr, key string) (bound, error) {
	tv, err := types.Eval(g.l.fset, g.l.pkg, token.NoPos, expr)
	if err != nil {
		msg := err.Error()
		if _, rest, ok := strings.Cut(msg, "eval:1:"); ok { // types.Eval's position in expr
			if _, m, ok := strings.Cut(rest, ": "); ok {
				msg = m
			}
		}
		return bound{}, fmt.Errorf("%s=%s: %s", key, expr, msg)
	}
	if tv.Value == nil {
		return bound{}, fmt.Errorf("%s=%s: not a constant", key, expr)
	}
	return bound{expr: expr, typ: tv.Type, value: tv.Value}, nil
}

func (g *generator) intBound(expr, key string) (bound, error) {
	b, err := g.constBound(expr, key)
	if err != nil {
		return b, err
	}
	v := constant.ToInt(b.value)
	if v.Kind() != constant.Int {
		return b, fmt.Errorf("%s=%s: not an integer", key, expr)
	}
	if _, exact := constant.Int64Val(v); !exact {
		return b, fmt.Errorf("%s=%s: out of range", key, expr)
	}
	b.value = v
	return b, nil
}

func (g *generator) floatBound(expr, key string) (bound, error) {
	b, err := g.constBound(expr, key)
	if err != nil {
		return b, err
	}
	if v := constant.ToFloat(b.value); v.Kind() != constant.Float && v.Kind() != constant.Int {
		return b, fmt.Errorf("%s=%s: not a number", key, expr)
	}
	return b, nil
}

// layout is the field's entry in SnapFields: its kind, width and bounds.
func (s *spec) layout() string {
	switch s.op {
	case opBool:
		return "bool"
	case opUint, opBits:
		return "uint bits=" + strconv.Itoa(s.width)
	case opInt, opSBits:
		return "int bits=" + strconv.Itoa(s.width)
	case opRanged:
		kind := "int"
		if s.enum {
			kind = "enum"
		}
		return kind + "[" + s.lo.value.String() + "," + s.hi.value.String() + "]"
	case opFloat, opHalf, opStep:
		kind := "float"
		if s.op == opHalf {
			kind = "half"
		}
		if !s.bounded {
			return kind
		}
		r := kind + "[" + floatString(s.lo.value) + "," + floatString(s.hi.value) + "]"
		if s.op == opStep {
			r += " step=" + floatString(s.step.value)
		}
		return r
	case opAngle16:
		return "angle16"
	case opAngle8:
		return "angle8"
	case opString:
		return "string max=" + s.hi.value.String()
	case opArray:
		n := "[" + strconv.FormatInt(s.length, 10)
		if s.count != "" {
			n += " len=" + s.count
		}
		return n + "]" + s.elem.layout()
	case opStruct:
		parts := make([]string, len(s.fields))
		for i, f := range s.fields {
			parts[i] = f.name + " " + f.spec.layout()
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	panic("fieldgen: unknown op")
}

// floatString is the float32 value of a constant, shortest form.
func floatString(v constant.Value) string {
	return strconv.FormatFloat(float64(float32Of(v)), 'g', -1, 32)
}
