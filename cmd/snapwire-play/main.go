//go:build play && !js

// Command snapwire-play is the window of "snapwire play": the
// reference game played by a person in an Ebitengine window, with a net
// graph and live network knobs. It takes the flags of "snapwire play",
// which runs it; see README.md. It is built only with the build tag
// "play" (cgo and the X11/GL headers on Linux):
//
//	go build -tags play ./cmd/snapwire-play
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/snapwire/snapwire/cmd/internal/play"
	"github.com/snapwire/snapwire/cmd/internal/play/window"
)

func main() {
	if err := play.Main(os.Args[1:], os.Stdout, os.Stderr, window.Run); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(0) // the usage -h asked for
		}
		fmt.Fprintln(os.Stderr, "snapwire play:", err)
		os.Exit(1)
	}
}
