package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestGen: "snapwire gen --check" accepts the checked-in examples/guide and refuses a package
// without declared types, naming it.
func TestGen(t *testing.T) {
	if err := runGen([]string{"--check", filepath.Join("..", "..", "examples", "guide")}, new(bytes.Buffer)); err != nil {
		t.Fatal(err)
	}
	err := runGen([]string{"--check", "."}, new(bytes.Buffer))
	if err == nil || !strings.Contains(err.Error(), "no struct type marked //snap:entity") {
		t.Fatalf("a package without declarations: %v", err)
	}
}
