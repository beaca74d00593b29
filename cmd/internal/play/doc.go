// Package play is "snapwire play": a person plays the reference game
// (internal/refgame) in a window, with the network made visible.
//
// The package splits along the build tag "play". Everything but the
// window is untagged and runs headless in go test: Session (the match,
// in process over the link simulator through internal/matchsim's Live, or a
// remote "snapwire serve" over UDP), the input mapping from keys and mouse
// to the arena's UserCmd (Command), the live knobs (Knobs: latency,
// jitter and loss of the simulated link, predicted or interpolated
// opponents, the ghost of the server's position, the net graph), the net
// graph's data (Graph: a Quake 3 lagometer strip plus DOOM III's figures),
// and Scene, the display list of one frame: rectangles, circles, lines and
// text in screen pixels with their colours. The files tagged "play" hold
// only what needs Ebitengine (and so cgo and the X11/GL headers on Linux):
// the window, reading the keyboard and mouse, and drawing a Scene.
//
// Rendering follows the client (DOOM III §2): the game runs at 60 Hz and
// the window draws at the display's rate, each moving entity at its
// predicted position blended between the last two game frames
// (client.Client.FrameFraction) plus the render correction
// (client.Client.VisualOffset) that hides prediction errors.
package play
