package demo_test

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/snapwire/snapwire/internal/q3/demo"
)

// Reading a demo an ioq3 client recorded (q3/testdata/README.md describes
// the session) and writing its messages again: the copy is the same file,
// byte for byte.
func Example() {
	file, err := os.ReadFile("../testdata/session-68.dm_68")
	if err != nil {
		panic(err)
	}
	r := demo.NewReader(bytes.NewReader(file))
	var out bytes.Buffer
	w := demo.NewWriter(&out)
	var n int
	var first demo.Message
	for m, err := r.Next(); err != io.EOF; m, err = r.Next() {
		if err != nil {
			panic(err)
		}
		if n++; n == 1 {
			first = m
		}
		w.WriteMessage(m.Sequence, m.Data)
	}
	w.Close()
	fmt.Println(n, "messages; the first, sequence", first.Sequence, "is the gamestate,", len(first.Data), "bytes")
	fmt.Println("terminated:", r.Terminated, "same file:", bytes.Equal(out.Bytes(), file))
	// Output:
	// 270 messages; the first, sequence 33 is the gamestate, 4193 bytes
	// terminated: true same file: true
}
