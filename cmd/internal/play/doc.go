// Package play is "snapwire play": a person plays the reference game
// (internal/refgame) in a window, with the network made visible.
//
// The package splits along the build tag "play". Everything but the
// window is untagged and runs headless in go test: Session (the match,
// in process over the link simulator through internal/matchsim's Live, or a
// remote "snapwire serve" over UDP or WebRTC), the input mapping from keys
// and mouse to the arena's UserCmd (Command), and Scene, the display list of
// one frame: the arena's rectangles, circles, lines and text in screen
// pixels with their colours, then the overlay. The live knobs (Knobs:
// latency, jitter and loss of the simulated link, predicted or
// interpolated opponents, the ghost of the server's position, the net
// graph), the net graph (Graph: a Quake 3 lagometer strip plus DOOM III's
// figures) and the overlay are every game window's, internal/playview's
// Overlay, named here as before. The window (package window, build tag
// "play") is the public window of github.com/snapwire/snapwire/play with
// the arena as its game: Ebitengine, so cgo and the X11/GL headers on
// Linux.
//
// Rendering follows the client (DOOM III §2): the game runs at 60 Hz and
// the window draws at the display's rate, each moving entity at its
// predicted position blended between the last two game frames
// (client.Client.FrameFraction) plus the render correction
// (client.Client.VisualOffset) that hides prediction errors.
package play
