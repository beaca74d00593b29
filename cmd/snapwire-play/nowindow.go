//go:build !play

package main

import (
	"fmt"
	"os"
)

// Without the build tag "play" this command only says how to build it, so
// that "go build ./..." needs nothing but Go.
func main() {
	fmt.Fprintln(os.Stderr, `snapwire-play was built without the window: go build -tags play ./cmd/snapwire-play
(Ebitengine needs cgo and, on Linux, the X11/GL headers; see README.md, "snapwire play")`)
	os.Exit(2)
}
