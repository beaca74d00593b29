package snapshot

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

func TestPVSSetOps(t *testing.T) {
	var p PVS
	for _, n := range []game.EntityNum{4095, 0, 31, 32, 1000} {
		p.Add(n)
	}
	p.Add(game.MaxEntities) // ignored
	if p.Len() != 5 || !p.Has(31) || p.Has(30) || p.Has(game.MaxEntities) {
		t.Fatalf("Len %d", p.Len())
	}
	got := slices.Collect(p.All())
	if !slices.Equal(got, []game.EntityNum{0, 31, 32, 1000, 4095}) {
		t.Fatalf("All = %v", got)
	}
	if p[0] != 1|1<<31 || p[1] != 1 || p[127] != 1<<31 {
		t.Fatalf("chunks %x %x %x", p[0], p[1], p[127])
	}
	p.Remove(31)
	if p.Has(31) || p.Len() != 4 {
		t.Fatal("Remove")
	}
}

func TestPVSDeltaExactBits(t *testing.T) {
	var base, p PVS
	base.Add(1)
	base.Add(40)
	p = base
	// Unchanged: the changed flag 0 alone (DOOM III §4.2 sends the 128-bit
	// mask, 16 zero bytes; our flag makes it 1 bit).
	w := bitmsg.NewWriter(make([]byte, 1024))
	p.WriteDelta(w, &base)
	if w.Len() != 1 || p.DeltaBits(&base) != 1 || !bytes.Equal(w.Bytes(), []byte{0}) {
		t.Fatalf("unchanged: %d bits %x", w.Len(), w.Bytes())
	}
	var same PVS
	if err := same.ReadDelta(bitmsg.NewReader(w.Bytes(), w.Len()), &base); err != nil || same != base {
		t.Fatalf("read unchanged: %v", err)
	}
	// A changed flag with an empty mask is not canonical.
	bad := bitmsg.NewWriter(make([]byte, 32))
	bad.WriteBool(true)
	for range 4 {
		bad.WriteBits(0, 32)
	}
	if err := same.ReadDelta(bitmsg.NewReader(bad.Bytes(), bad.Len()), &base); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("empty mask: %v", err)
	}
	// Entity 2 enters (chunk 0), entity 40 leaves (chunk 1), 4095 enters (chunk 127).
	p.Add(2)
	p.Remove(40)
	p.Add(4095)
	w = bitmsg.NewWriter(make([]byte, 1024))
	p.WriteDelta(w, &base)
	// The changed flag 1, then the mask and chunks of DOOM III §4.2, one
	// bit on: byte i of the unshifted layout is bits 8i+1.. of the message.
	unshifted := make([]byte, 16+12)
	unshifted[0] = 0b11    // mask bits 0 and 1
	unshifted[15] = 0x80   // mask bit 127
	unshifted[16] = 0b110  // chunk 0: entities 1 and 2
	unshifted[20+0] = 0    // chunk 1: empty
	unshifted[24+3] = 0x80 // chunk 127: entity 4095
	want := make([]byte, 16+12+1)
	want[0] = 1 // the changed flag
	for i, b := range unshifted {
		want[i] |= b << 1
		want[i+1] |= b >> 7
	}
	if w.Len() != 1+128+3*32 || p.DeltaBits(&base) != w.Len() || !bytes.Equal(w.Bytes(), want) {
		t.Fatalf("changed: %d bits\n%x\nwant\n%x", w.Len(), w.Bytes(), want)
	}
	var got PVS
	if err := got.ReadDelta(bitmsg.NewReader(w.Bytes(), w.Len()), &base); err != nil || got != p {
		t.Fatalf("read: %v", err)
	}
	for n := 0; n < w.Len(); n++ {
		if err := got.ReadDelta(bitmsg.NewReader(w.Bytes(), n), &base); !errors.Is(err, ErrCorrupt) || got != (PVS{}) {
			t.Fatalf("prefix %d: %v", n, err)
		}
	}
}

func TestPVSDeltaRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	buf := make([]byte, 1024)
	for range 200 {
		var base, p PVS
		for i := range base {
			base[i] = r.Uint32() & r.Uint32()
		}
		p = base
		for range r.IntN(20) {
			n := game.EntityNum(r.IntN(game.MaxEntities))
			if p.Has(n) {
				p.Remove(n)
			} else {
				p.Add(n)
			}
		}
		w := bitmsg.NewWriter(buf)
		p.WriteDelta(w, &base)
		var got PVS
		if err := got.ReadDelta(bitmsg.NewReader(w.Bytes(), w.Len()), &base); err != nil || got != p || w.Len() != p.DeltaBits(&base) {
			t.Fatal("round trip")
		}
	}
}

func TestNextCode(t *testing.T) {
	w := bitmsg.NewWriter(make([]byte, 1<<15))
	total := 0
	for k := 0; k < game.MaxEntities; k++ {
		writeNext(w, k)
		total += nextBits(k)
	}
	writeEnd(w)
	total += 2
	for k, want := range map[int]int{0: 1, 1: 4, 2: 4, 3: 6, 6: 6, 7: 8, 14: 8, 15: 10, 2046: 22, 2047: 24, 4094: 24, 4095: 26} {
		if nextBits(k) != want {
			t.Errorf("nextBits(%d) = %d, want %d", k, nextBits(k), want)
		}
	}
	if w.Err() != nil || w.Len() != total {
		t.Fatal(w.Err(), w.Len(), total)
	}
	r := bitmsg.NewReader(w.Bytes(), w.Len())
	for k := 0; k < game.MaxEntities; k++ {
		if got, end := readNext(r); got != k || end {
			t.Fatalf("readNext = %d, %v, want %d", got, end, k)
		}
	}
	if _, end := readNext(r); !end || r.Err() != nil {
		t.Fatalf("end code not read: %v", r.Err())
	}
	// Exact bits, LSB first: skip 0 "0", skip 1 "1 0 1 0", skip 5 "1 00 1 01"
	// (x = 6 = 0b110: two zeros, the one, the low bits 0 then 1), end "11".
	w = bitmsg.NewWriter(make([]byte, 8))
	writeNext(w, 0)
	writeNext(w, 1)
	writeNext(w, 5)
	writeEnd(w)
	if got, want := bitsOf(w.Bytes(), w.Len()), "0"+"1010"+"100101"+"11"; got != want {
		t.Fatalf("bits %s, want %s", got, want)
	}
	// More than 12 leading zeros is malformed.
	w = bitmsg.NewWriter(make([]byte, 8))
	w.WriteBits(1, 1)
	w.WriteBits(0, 13)
	w.WriteBits(1, 1)
	if k, end := readNext(bitmsg.NewReader(w.Bytes(), w.Len())); k != badSkip || end {
		t.Fatalf("malformed code read as %d, %v", k, end)
	}
}

func bitsOf(b []byte, n int) string {
	s := make([]byte, n)
	for i := range n {
		s[i] = '0' + b[i/8]>>(i%8)&1
	}
	return string(s)
}
