package demo

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"
)

// TestReadWriteShared reads both shared demos and writes them back byte
// for byte.
func TestReadWriteShared(t *testing.T) {
	for _, c := range []struct {
		file       string
		n          int
		first, end int32
		gamestate  int
	}{{"session-68.dm_68", 270, 33, 303, 4193}, {"session-71.dm_71", 264, 39, 303, 4176}} {
		raw, err := os.ReadFile("../testdata/" + c.file)
		if err != nil {
			t.Fatal(err)
		}
		r := NewReader(bytes.NewReader(raw))
		var out bytes.Buffer
		w := NewWriter(&out)
		n := 0
		var last int32
		for {
			m, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 && (m.Sequence != c.first || len(m.Data) != c.gamestate) {
				t.Errorf("%s: first message seq %d, %d bytes", c.file, m.Sequence, len(m.Data))
			}
			last = m.Sequence
			n++
			if err := w.WriteMessage(m.Sequence, m.Data); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if n != c.n || last != c.end || !r.Terminated {
			t.Errorf("%s: %d messages, last seq %d, terminated %v", c.file, n, last, r.Terminated)
		}
		if !bytes.Equal(out.Bytes(), raw) {
			t.Errorf("%s: rewritten file differs", c.file)
		}
	}
}

func TestTruncatedAndBad(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	w.WriteMessage(7, []byte("abc"))
	w.Close()
	full := buf.Bytes()
	for n := 1; n < len(full); n++ {
		r := NewReader(bytes.NewReader(full[:n]))
		var err error
		for err == nil {
			_, err = r.Next()
		}
		if r.Terminated {
			t.Fatalf("%d-byte prefix reported the end marker", n)
		}
		if n != 11 && !errors.Is(err, ErrTruncated) { // 11 = one whole record, no marker: a clean EOF
			t.Fatalf("%d-byte prefix: %v", n, err)
		}
	}
	bad := []byte{1, 0, 0, 0, 0xff, 0xff, 0, 0}
	if _, err := NewReader(bytes.NewReader(bad)).Next(); !errors.Is(err, ErrBadLength) {
		t.Fatalf("huge length: %v", err)
	}
	if err := NewWriter(io.Discard).WriteMessage(1, make([]byte, MaxMsgLen+1)); !errors.Is(err, ErrBadLength) {
		t.Fatalf("write huge: %v", err)
	}
}

func FuzzReader(f *testing.F) {
	raw, _ := os.ReadFile("../testdata/session-71.dm_71")
	f.Add(raw[:600])
	f.Fuzz(func(t *testing.T, data []byte) {
		r := NewReader(bytes.NewReader(data))
		var out bytes.Buffer
		w := NewWriter(&out)
		for i := 0; i < 1000; i++ {
			m, err := r.Next()
			if err != nil {
				break
			}
			w.WriteMessage(m.Sequence, m.Data)
		}
		if r.Terminated {
			if !bytes.HasPrefix(data, out.Bytes()) {
				t.Fatal("rewritten demo is not a prefix of the input")
			}
		}
	})
}
