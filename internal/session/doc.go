// Package session holds the session messages snapwire's server and client
// exchange on top of the message channel (package netchan): the
// connectionless handshake (getchallenge, challenge, connect, accept,
// refuse), the header of every unreliable message in both directions
// (DOOM III §3.1, figs. 7 and 8: the game id, and from the client the
// acknowledged snapshot), and the reliable messages (apply S, events,
// disconnect).
//
// It is the glue layer between package snapshot / game (which encode the
// snapshot and the user commands) and package netchan (which carries
// messages). docs/PROTOCOL.md ("Session protocol") specifies every byte; this package
// follows it. Every parser treats its input as hostile: bounded lengths,
// no panics, errors wrapping ErrMalformed.
package session
