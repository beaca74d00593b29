// Package playview is what every window of a snapwire game shares, without
// the window: the net graph's data (Graph: a Quake 3 lagometer strip plus
// DOOM III's figures), the live knobs (Knobs: latency, jitter and loss of an
// in-process link, predicted or interpolated opponents, the ghost of the
// server's position, the net graph), the overlay as a display list (Scene:
// the net graph and the status band, in screen pixels), the render
// positions blended between game frames (Smoother), and the player's
// client carried to a remote server (Remote: UDP, or in a browser a WebRTC
// data channel).
//
// It imports no graphics library, so that the arena's headless play
// (cmd/internal/play) and its tests use it as they are; the public package
// play (its own module, Ebitengine) draws its Scene in a window, and so
// does the arena's window through it.
//
// Rendering follows the client (DOOM III §2): the game runs at 60 Hz and
// the window draws at the display's rate, each moving entity at its
// predicted position blended between the last two game frames
// (client.Client.FrameFraction) plus the render correction
// (client.Client.VisualOffset) that hides prediction errors.
package playview
