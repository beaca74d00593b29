// Package play opens a window on a game built on snapwire: an Ebitengine
// window (and the same program, built for js/wasm, in a browser page over
// the WebRTC transport) in which a person plays the game through its
// client, with the network made visible. The game supplies its drawing
// (Game: draw the world as the client shows it); snapwire supplies the
// rest:
//
//   - the client loop: the window steps the Session (Local: a server in
//     this process over the link simulator; Dial: a server over UDP, or
//     from a browser over a WebRTC data channel) at the display's rate,
//     and the client samples the game's InputSource for each 60 Hz game
//     frame (DOOM III §2);
//   - the interpolation between frames: View.Position blends each
//     entity's predicted positions of the last two game frames by how far
//     the clock is into the next one, plus the render correction that
//     hides prediction errors (client.Client.VisualOffset);
//   - the overlay: a status band and the net graph, a Quake 3 lagometer
//     strip (cl_scrn.c) of snapshot arrivals and losses, frames
//     re-predicted, prediction corrections and the command lead (DOOM III
//     §3.2), beside the figures of the last second (ping, loss, bandwidth,
//     snapshot size and rate, common-base applies);
//   - the live knobs: N or F3 the net graph; I the types of
//     Options.Interpolate predicted (DOOM III) or interpolated (Quake 3);
//     G the ghost, the server's position of the player's entity
//     (View.Ghost); [ ] the round trip, - = the jitter and 9 0 the loss of
//     Local's link; Esc quits.
//
// The package is a module of its own, github.com/snapwire/snapwire/play,
// so that a program built on the library alone needs neither Ebitengine
// nor cgo. Ebitengine needs cgo and, on Linux, the X11/GL headers (Debian:
// gcc pkg-config libx11-dev libxrandr-dev libxcursor-dev libxinerama-dev
// libxi-dev libgl1-mesa-dev libxxf86vm-dev libasound2-dev); a browser
// build (GOOS=js GOARCH=wasm) needs neither. The arena's "snapwire play"
// is one user of this package (cmd/internal/play/window).
package play
