// Package window is the Ebitengine window of "snapwire play": it reads
// the keyboard and mouse into a play.Input and the knob keys into
// play.Actions, steps the play.Session at the display's rate and draws
// its play.Scene. Its code carries the build tag "play": Ebitengine needs
// cgo and, on Linux, the X11/GL headers, and any program linking it stops
// at start-up without a display, so only the snapwire-play binary links
// it (cmd/snapwire-play); "snapwire play" runs that binary.
package window
