package msg

import "math"

// netField is one row of a delta field table (ioq3 msg.c netField_t):
// the table order is the wire order. bits == 0 marks a float; a negative
// width is a signed integer (sign-extended when read).
type netField[T any] struct {
	name string
	bits int
	i    func(*T) *int32   // integer fields
	f    func(*T) *float32 // float fields (bits == 0)
}

// raw returns the field's 32 bits, as the engine compares them (*(int *)).
func (nf *netField[T]) raw(s *T) uint32 {
	if nf.f != nil {
		return math.Float32bits(*nf.f(s))
	}
	return uint32(*nf.i(s))
}

func (nf *netField[T]) setRaw(s *T, v uint32) {
	if nf.f != nil {
		*nf.f(s) = math.Float32frombits(v)
		return
	}
	*nf.i(s) = int32(v)
}

// smallFloat reports whether f is sent in FLOAT_INT_BITS as an integer
// (ioq3: trunc == fullFloat && trunc + FLOAT_INT_BIAS in [0, 1<<FLOAT_INT_BITS)).
func smallFloat(f float32) (int32, bool) {
	if f >= -floatIntBias && f < floatIntBias && f == float32(int32(f)) {
		return int32(f), true
	}
	return 0, false
}

// writeFloatField writes a changed float field's value (after the
// "changed" bit). zeroBit adds the entity table's "is zero" bit.
func writeFloatField(w *Writer, v float32, zeroBit bool) {
	if zeroBit {
		if v == 0 { // also -0, which becomes +0 on the other side
			w.WriteBits(0, 1)
			return
		}
		w.WriteBits(1, 1)
	}
	if t, ok := smallFloat(v); ok {
		w.WriteBits(0, 1)
		w.WriteBits(uint32(t+floatIntBias), floatIntBits)
		return
	}
	w.WriteBits(1, 1)
	w.WriteBits(math.Float32bits(v), 32)
}

// readFloatField is the inverse of writeFloatField; it returns raw bits.
func readFloatField(r *Reader, zeroBit bool) uint32 {
	if zeroBit && r.ReadBits(1) == 0 {
		return 0
	}
	if r.ReadBits(1) == 0 {
		t := int32(r.ReadBits(floatIntBits)) - floatIntBias
		return math.Float32bits(float32(t))
	}
	return r.ReadBits(32)
}

func absBits(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// readIntField reads an integer field of the table width.
func readIntField(r *Reader, bits int) uint32 {
	if bits < 0 {
		return uint32(r.ReadSigned(-bits))
	}
	return r.ReadBits(bits)
}
