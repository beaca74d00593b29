// Package golden compares test output with golden files the way Go's
// compress/flate tests do: run the tests with -update to rewrite the files;
// on a mismatch the output is written next to the golden file with a .got
// suffix so the two can be diffed.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check compares got with the file name in testdata.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		_ = os.WriteFile(path+".got", got, 0o644)
		t.Errorf("%s: output differs from the golden file; wrote %s.got", name, path)
		return
	}
	_ = os.Remove(path + ".got")
}
