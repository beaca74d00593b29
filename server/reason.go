package server

import "github.com/snapwire/snapwire/internal/session"

// Reason says why the server refused a connect or dropped a client: the
// reason it sends the client (docs/PROTOCOL.md, refuse and disconnect) and
// the "reason" of its log events (Config.Logger). Its values are the
// session protocol's (internal/session), so they cannot diverge
// (TestReasonsMatchSession); package client declares the same.
type Reason uint8

// Reasons. A client that leaves, is kicked, times out, is shut down,
// breaks the protocol or floods game messages is dropped with one of the
// first six; the others refuse a connect.
const (
	ReasonClientLeft    = Reason(session.ReasonClientLeft)
	ReasonKicked        = Reason(session.ReasonKicked)
	ReasonTimeout       = Reason(session.ReasonTimeout)
	ReasonShutdown      = Reason(session.ReasonShutdown)
	ReasonProtocolError = Reason(session.ReasonProtocolError)
	// ReasonMessageFlood drops a client that sent game messages faster
	// or larger than Advanced's limits.
	ReasonMessageFlood = Reason(session.ReasonMessageFlood)

	ReasonServerFull    = Reason(session.ReasonServerFull)
	ReasonWrongVersion  = Reason(session.ReasonWrongVersion)
	ReasonWrongRegistry = Reason(session.ReasonWrongRegistry)
	ReasonWrongPassword = Reason(session.ReasonWrongPassword)
	ReasonBadCookie     = Reason(session.ReasonBadCookie)
	// Connect tokens (package token) and the per-address limits
	// (Advanced).
	ReasonTokenRequired     = Reason(session.ReasonTokenRequired)
	ReasonTokenExpired      = Reason(session.ReasonTokenExpired)
	ReasonTokenNotYetValid  = Reason(session.ReasonTokenNotYetValid)
	ReasonTokenWrongProto   = Reason(session.ReasonTokenWrongProto)
	ReasonTokenWrongServer  = Reason(session.ReasonTokenWrongServer)
	ReasonTokenInvalid      = Reason(session.ReasonTokenInvalid)
	ReasonTokenReused       = Reason(session.ReasonTokenReused)
	ReasonTokenOtherAddress = Reason(session.ReasonTokenOtherAddress)
	ReasonTokenUnsupported  = Reason(session.ReasonTokenUnsupported)
	ReasonTooManyAttempts   = Reason(session.ReasonTooManyAttempts)
	ReasonTooManyFromIP     = Reason(session.ReasonTooManyFromIP)
	// ReasonNoSuchMatch refuses a connect to a match this process does
	// not host (the token's match, else the connect's; server.Host).
	ReasonNoSuchMatch = Reason(session.ReasonNoSuchMatch)
)

// String is the reason in words ("server full"), as the log shows it.
func (r Reason) String() string { return session.Reason(r).String() }
