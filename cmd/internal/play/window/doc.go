// Package window is the Ebitengine window of "snapwire play": the arena
// played through github.com/snapwire/snapwire/play, which steps the
// session, blends the entities between game frames and draws the net
// graph and the knobs' status over the arena drawn here; the keyboard and
// mouse are read here into a play.Input. Its code carries the
// build tag "play": Ebitengine needs cgo and, on Linux, the X11/GL
// headers, and any program linking it stops at start-up without a
// display, so only the snapwire-play binary links it (cmd/snapwire-play);
// "snapwire play" runs that binary.
package window
