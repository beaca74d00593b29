package bitmsg

import (
	"bytes"
	"testing"
)

func schemaBytes(ops []op) []byte {
	var p []byte
	for _, o := range ops {
		p = append(p, byte(o.kind), o.param)
	}
	return p
}

// bitsEqual reports whether a and b agree on their first n bits.
func bitsEqual(a, b []byte, n int) bool {
	if !bytes.Equal(a[:n/8], b[:n/8]) {
		return false
	}
	if r := n & 7; r > 0 {
		m := byte(1)<<uint(r) - 1
		return a[n/8]&m == b[n/8]&m
	}
	return true
}

// FuzzReader decodes fuzz data with a fuzz-chosen schema of fields, then encodes the values
// again and decodes that: decode -> encode -> decode must agree, and since every encoding the
// reader accepts is canonical, the re-encoding must equal the input bits it consumed.
func FuzzReader(f *testing.F) {
	sample, _ := plainState(&testing.T{}, sampleOps, sampleVals)
	f.Add(schemaBytes(sampleOps), sample)
	for _, c := range wireCases {
		w := NewWriter(make([]byte, 64))
		c.write(w)
		f.Add([]byte{byte(opBits), 31, byte(opUint16), 0, byte(opString), 3}, w.Bytes())
	}
	f.Add(schemaBytes([]op{{opFloatBits, 6}, {opDir, 1}, {opHalf, 0}}), []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF})
	f.Fuzz(func(t *testing.T, schema, data []byte) {
		ops := parseOps(schema)
		r := NewReader(data, len(data)*8)
		v1 := readAll(r, ops)
		if r.Err() != nil {
			for i, v := range readAll(r, ops) {
				if v != zeroVal(ops[i]) {
					t.Fatalf("op %v after error %v returned %+v", ops[i], r.Err(), v)
				}
			}
			return
		}
		pos := r.pos
		w := NewWriter(make([]byte, len(data)+8))
		writeAll(w, ops, v1)
		if w.Err() != nil {
			t.Fatalf("re-encode: %v", w.Err())
		}
		if w.Len() != pos {
			t.Fatalf("re-encoding is %d bits, input consumed %d", w.Len(), pos)
		}
		if !bitsEqual(w.Bytes(), data, pos) {
			t.Fatalf("re-encoding differs from the input:\n%x\n%x", w.Bytes(), data)
		}
		r2 := NewReader(w.Bytes(), w.Len())
		v2 := readAll(r2, ops)
		if r2.Err() != nil || r2.BitsLeft() != 0 {
			t.Fatalf("second decode: %v, %d bits left", r2.Err(), r2.BitsLeft())
		}
		for i := range v1 {
			if v1[i] != v2[i] {
				t.Fatalf("op %v: %+v then %+v", ops[i], v1[i], v2[i])
			}
		}
		if pos > 0 {
			r3 := NewReader(data, pos-1)
			readAll(r3, ops)
			if r3.Err() == nil {
				t.Fatalf("prefix of %d bits decoded", pos-1)
			}
		}
	})
}

// FuzzDeltaReader decodes fuzz data as a delta message against a fuzz base with a fuzz schema,
// then re-encodes the values against the same base with a DeltaWriter and decodes that: values
// and new state must agree, the writer's state must equal the reader's, and the new state must
// read back unchanged as an omitted entity (one 0 bit per field when written against itself).
func FuzzDeltaReader(f *testing.F) {
	t0 := &testing.T{}
	state, stateBits := plainState(t0, sampleOps, sampleVals)
	schema := schemaBytes(sampleOps)
	msg, _, _, _, _ := deltaEncode(t0, sampleOps, sampleVals, nil, 0)
	f.Add(schema, []byte{}, msg)
	msg, _, _, _, _ = deltaEncode(t0, sampleOps, sampleVals, state, stateBits)
	f.Add(schema, state, msg)
	alt := append([]val(nil), sampleVals...)
	alt[3], alt[8], alt[16] = val{}, val{s: "x"}, val{a: fb(1)}
	msg, _, _, _, _ = deltaEncode(t0, sampleOps, alt, state, stateBits)
	f.Add(schema, state, msg)
	f.Add(schema, state[:10], msg)
	f.Fuzz(func(t *testing.T, schema, base, data []byte) {
		ops := parseOps(schema)
		baseBits := len(base) * 8
		v1, s1, s1Bits, changed1, err := deltaDecode(ops, base, baseBits, NewReader(data, len(data)*8))
		if err != nil {
			return
		}
		s1 = append([]byte(nil), s1...)
		msg, msgBits, s2, s2Bits, changed2 := deltaEncode(t, ops, v1, base, baseBits)
		if s2Bits != s1Bits || !bitsEqual(s1, s2, s1Bits) {
			t.Fatalf("writer state %x/%d, reader state %x/%d", s2, s2Bits, s1, s1Bits)
		}
		if changed2 && !changed1 {
			t.Fatal("writer saw a change the input did not send")
		}
		v2, s3, s3Bits, _, err := deltaDecode(ops, base, baseBits, NewReader(msg, msgBits))
		if err != nil || s3Bits != s1Bits || !bitsEqual(s1, s3, s1Bits) {
			t.Fatalf("second decode: err %v state %d bits", err, s3Bits)
		}
		for i := range v1 {
			if v1[i] != v2[i] {
				t.Fatalf("op %v: %+v then %+v", ops[i], v1[i], v2[i])
			}
		}
		// The new state as the base of an omitted entity.
		v3, _, _, changed3, err := deltaDecode(ops, s1, s1Bits, nil)
		if err != nil || changed3 {
			t.Fatalf("omitted entity: err %v changed %v", err, changed3)
		}
		for i := range v1 {
			if v1[i] != v3[i] {
				t.Fatalf("omitted entity op %v: %+v vs %+v", ops[i], v3[i], v1[i])
			}
		}
		_, msgBits, _, _, changed4 := deltaEncode(t, ops, v1, s1, s1Bits)
		if changed4 || msgBits != len(ops) {
			t.Fatalf("against its own state: changed %v, %d bits for %d fields", changed4, msgBits, len(ops))
		}
	})
}
