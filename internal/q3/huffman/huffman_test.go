package huffman

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/internal/q3/internal/golden"
)

// TestFixedCodeGolden pins every code of the fixed tree (built from
// msg_hData); any change in the table or the adaptive update shows here.
func TestFixedCodeGolden(t *testing.T) {
	f := FixedCode()
	var b strings.Builder
	fmt.Fprintf(&b, "# symbol length code (first bit sent on the left)\n")
	for sym := 0; sym <= symbolNYT; sym++ {
		e := f.enc[sym]
		var bits strings.Builder
		for i := 0; i < int(e.n); i++ {
			bits.WriteByte('0' + byte(e.bits>>uint(i)&1))
		}
		name := fmt.Sprint(sym)
		if sym == symbolNYT {
			name = "NYT"
		}
		fmt.Fprintf(&b, "%s %d %s\n", name, e.n, bits.String())
	}
	golden.Check(t, "fixed_codes.golden", []byte(b.String()))
}

// TestFixedCodeComplete: the codes form a complete prefix code (Kraft sum
// exactly 1) and every lookup entry decodes to the symbol that owns it.
func TestFixedCodeComplete(t *testing.T) {
	f := FixedCode()
	var kraft float64
	for sym := 0; sym <= symbolNYT; sym++ {
		e := f.enc[sym]
		kraft += 1 / float64(uint64(1)<<e.n)
		got, n := f.Decode(uint64(e.bits))
		if int(got) != sym || n != int(e.n) {
			t.Fatalf("symbol %d: decodes as %d/%d bits", sym, got, n)
		}
	}
	if kraft != 1 {
		t.Fatalf("Kraft sum %v, want 1", kraft)
	}
	if f.MaxLen() > 32 || f.MaxLen() < 8 {
		t.Fatalf("max length %d", f.MaxLen())
	}
}

// The connect packets the engine's client sent in the shared captures:
// decompressing them gives the userinfo, and compressing that userinfo
// again gives the engine's bytes exactly.
func TestAdaptiveEngineCapture(t *testing.T) {
	for _, name := range []string{"connect-68", "connect-71"} {
		pkt, err := os.ReadFile("testdata/" + name + ".bin")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(pkt, []byte("\xff\xff\xff\xffconnect ")) {
			t.Fatalf("%s: not a connect packet", name)
		}
		text, err := Decompress(nil, pkt[12:], 16384-12)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		golden.Check(t, name+".userinfo.golden", text)
		if want := int(pkt[12])<<8 | int(pkt[13]); len(text) != want {
			t.Fatalf("%s: %d bytes, header says %d", name, len(text), want)
		}
		again, err := Compress(append([]byte(nil), pkt[:12]...), text)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again, pkt) {
			t.Fatalf("%s: recompressed packet differs from the engine's\n got % x\nwant % x", name, again, pkt)
		}
	}
}

// TestAdaptiveGolden pins the adaptive coder on fixed inputs.
func TestAdaptiveGolden(t *testing.T) {
	var out strings.Builder
	for _, in := range []string{"a", "aaaaaaaaaaaaaaaa", "\"\\name\\snapwire\\rate\\25000\\snaps\\20\"", "abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz"} {
		c, err := Compress(nil, []byte(in))
		if err != nil {
			fmt.Fprintf(&out, "%q error %v\n", in, err)
			continue
		}
		fmt.Fprintf(&out, "%q\n% x\n", in, c)
		d, err := Decompress(nil, c, 1<<16)
		if err != nil || string(d) != in {
			t.Errorf("%q: round trip %q, %v", in, d, err)
		}
	}
	golden.Check(t, "adaptive.golden", []byte(out.String()))
}

func TestAdaptiveRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	for i := 0; i < 300; i++ {
		n := rng.IntN(2000) + 1
		src := make([]byte, n)
		alpha := rng.IntN(255) + 1
		for j := range src {
			src[j] = byte(rng.IntN(alpha))
		}
		c, err := Compress([]byte("pre"), src)
		if errors.Is(err, ErrExpands) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		d, err := Decompress(nil, c[3:], 1<<16)
		if err != nil || !bytes.Equal(d, src) {
			t.Fatalf("case %d: round trip failed: %v", i, err)
		}
	}
}

func TestAdaptiveLimits(t *testing.T) {
	if out, err := Compress(nil, nil); err != nil || len(out) != 0 {
		t.Fatalf("empty: %v %v", out, err)
	}
	if _, err := Compress(nil, make([]byte, 70000)); !errors.Is(err, ErrTooLong) {
		t.Fatalf("70000 bytes: %v", err)
	}
	// One byte costs 8 literal bits + 16 header bits: more than 8 bits.
	if _, err := Compress(nil, []byte{0x42, 0x17}); !errors.Is(err, ErrExpands) {
		t.Fatalf("incompressible: %v", err)
	}
	// The declared length is capped like the engine's maxsize.
	c, _ := Compress(nil, []byte(strings.Repeat("x", 100)))
	d, err := Decompress(nil, c, 10)
	if err != nil || string(d) != strings.Repeat("x", 10) {
		t.Fatalf("capped: %q %v", d, err)
	}
}

// Every truncated prefix of a compressed stream either fails cleanly or
// (when only the spare byte is cut) still yields the original.
func TestAdaptiveTruncated(t *testing.T) {
	pkt, _ := os.ReadFile("testdata/connect-68.bin")
	full, _ := Decompress(nil, pkt[12:], 1<<16)
	c := pkt[12:]
	for n := 0; n < len(c); n++ {
		d, err := Decompress(nil, c[:n], 1<<16)
		if err == nil && !bytes.Equal(d, full) && n > 0 {
			t.Fatalf("prefix %d: decoded %d bytes without error", n, len(d))
		}
	}
}

func FuzzDecompress(f *testing.F) {
	for _, name := range []string{"connect-68", "connect-71"} {
		pkt, _ := os.ReadFile("testdata/" + name + ".bin")
		f.Add(pkt[12:])
	}
	f.Add([]byte{0, 3, 0xff, 0x12})
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Decompress(nil, data, 4096)
		if err != nil {
			return
		}
		c, err := Compress(nil, d)
		if err != nil {
			return // e.g. ErrExpands: the engine could not have sent it either
		}
		d2, err := Decompress(nil, c, 4096)
		if err != nil || !bytes.Equal(d, d2) {
			t.Fatalf("decode->encode->decode mismatch: %v", err)
		}
	})
}

// BenchmarkFixedBuild is the engine's derivation (adaptive updates from
// msg_hData), which FixedCode used to run on first use.
func BenchmarkFixedBuild(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		buildFixed()
	}
}

func BenchmarkCompressUserinfo(b *testing.B) {
	pkt, _ := os.ReadFile("testdata/connect-68.bin")
	text, _ := Decompress(nil, pkt[12:], 1<<16)
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		buf, _ = Compress(buf[:0], text)
	}
	b.ReportMetric(float64(len(buf))/float64(len(text)), "ratio")
}

func BenchmarkDecompressUserinfo(b *testing.B) {
	pkt, _ := os.ReadFile("testdata/connect-68.bin")
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	b.SetBytes(int64(len(pkt) - 12))
	for b.Loop() {
		buf, _ = Decompress(buf[:0], pkt[12:], 1<<16)
	}
}
