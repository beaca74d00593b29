//go:build play

package main

import (
	"errors"
	"io"

	"github.com/snapwire/snapwire/internal/play"
)

// windowBuilt: this binary has the window (build tag "play").
const windowBuilt = true

func playWindow(s *play.Session, o playOptions) error {
	return play.Run(s, play.WindowOptions{Duration: o.duration, Screenshot: o.screenshot})
}

func reexecPlay([]string, io.Writer) error {
	return errors.New("snapwire play: the window is built in")
}
