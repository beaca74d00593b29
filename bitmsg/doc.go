// Package bitmsg is snapwire's bit message layer: bit packing, quantisation and delta
// compression of entity state (DOOM III paper §4.1, §4.2, §5).
//
// It sits between the game code and the message channel (see docs/ARCHITECTURE.md "Layers"). Game code
// writes and reads its entities' state in WriteSnapshot / ReadSnapshot through a DeltaWriter /
// DeltaReader; package snapshot seeds them with each entity's state in the client's common
// base and keeps the new states they produce until the snapshot is acknowledged; netchan then
// zero-run-length compresses and sends the bytes. Events and user commands use Writer and
// Reader directly.
//
// # Bit packing (§4.1)
//
// Bits are packed LSB first: the first bit written is bit 0 of byte 0, and a value of n bits
// is written low bit first. A Writer keeps a 64-bit accumulator and flushes 32 bits at a time
// into a caller-supplied buffer; nothing allocates. Every field states its width or range and
// the Reader re-checks it (yojimbo serialize_int): a ranged int whose raw value exceeds
// max-min, a reduced float or direction code the writer never produces, or a string length
// above its maxLen is ErrRange. Errors are sticky (Go's compress/flate huffman_bit_writer, ioq3
// msg.c overflowed): the first one is kept, later writes are dropped, later reads return zero
// values, and the caller checks Err once per message.
//
// Widths at a glance:
//
//	WriteBits(v, n)               n bits, n in 1..32
//	WriteInt(v, n)                n bits two's complement, n in 2..32
//	WriteBool                     1
//	WriteUint8/16/32, WriteUint64 8/16/32/64
//	WriteBytes(p)                 8*len(p), no length
//	WriteString(s, maxLen)        BitsFor(maxLen) + 8*len(s)
//	WriteRangedInt(v, min, max)   BitsFor(max-min)
//	WriteRangedFloat(.., bits)    bits, 1..32
//	WriteFloat                    32 (IEEE binary32, raw)
//	WriteFloatBits(v, e, m)       1+e+m, e in 2..8, m in 0..23
//	WriteHalf                     16 (IEEE binary16)
//	WriteAngle16 / WriteAngle8    16 / 8
//	WriteDir(d, n)                3n, n in 2..10 (paper: 3)
//
// # Quantisation
//
// The Quantize functions (QuantizeFloat, QuantizeHalf, QuantizeAngle16, QuantizeAngle8,
// QuantizeRanged, QuantizeDir) return exactly what the peer reads back, so game code can
// quantise its own state and predict with the same values the client will see. Their doc
// comments define each format and its error bound.
//
// # Delta compression (§4.2, §5)
//
// DeltaWriter is idBitMsgDelta: seeded with an entity's state in the common base, each Write
// call is one field, written as a 0 bit when its encoding equals the base's at the same place,
// else a 1 bit and the encoding; the full new state goes to a second buffer, to be applied to
// the common base once the snapshot is acknowledged. The snapshot encoder and decoder
// (internal/snapshot) start each entity on a DeltaWriter or DeltaReader and take its new state;
// a game's WriteSnapshot and ReadSnapshot only write and read fields. DeltaReader reverses it
// against the same base, and with a nil input rebuilds an omitted entity from its base.
package bitmsg
