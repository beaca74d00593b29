package client

// Why a server refuses a connect or drops a client: the reason byte of the
// session protocol's refuse and disconnect messages (docs/PROTOCOL.md,
// "Session protocol"). The values are package session's, so the two cannot
// diverge (reason_test.go checks every one has its constant here).

import "github.com/snapwire/snapwire/internal/session"

// Reason says why the server refused the connect or dropped the client
// (RefusedError).
type Reason uint8

// The reasons a server gives.
const (
	ReasonNone              = Reason(session.ReasonNone)
	ReasonServerFull        = Reason(session.ReasonServerFull)
	ReasonWrongVersion      = Reason(session.ReasonWrongVersion)
	ReasonWrongRegistry     = Reason(session.ReasonWrongRegistry)
	ReasonWrongPassword     = Reason(session.ReasonWrongPassword)
	ReasonBadCookie         = Reason(session.ReasonBadCookie)
	ReasonTimeout           = Reason(session.ReasonTimeout)
	ReasonShutdown          = Reason(session.ReasonShutdown)
	ReasonClientLeft        = Reason(session.ReasonClientLeft)
	ReasonKicked            = Reason(session.ReasonKicked)
	ReasonProtocolError     = Reason(session.ReasonProtocolError)
	ReasonTokenRequired     = Reason(session.ReasonTokenRequired)
	ReasonTokenExpired      = Reason(session.ReasonTokenExpired)
	ReasonTokenWrongProto   = Reason(session.ReasonTokenWrongProto)
	ReasonTokenWrongServer  = Reason(session.ReasonTokenWrongServer)
	ReasonTokenInvalid      = Reason(session.ReasonTokenInvalid)
	ReasonTokenReused       = Reason(session.ReasonTokenReused)
	ReasonTokenOtherAddress = Reason(session.ReasonTokenOtherAddress)
	ReasonTokenUnsupported  = Reason(session.ReasonTokenUnsupported)
	ReasonTooManyAttempts   = Reason(session.ReasonTooManyAttempts)
	ReasonTooManyFromIP     = Reason(session.ReasonTooManyFromIP)
	ReasonTokenNotYetValid  = Reason(session.ReasonTokenNotYetValid)
	// ReasonMessageFlood: the client sent game messages faster or larger
	// than the server's limits.
	ReasonMessageFlood = Reason(session.ReasonMessageFlood)
	// ReasonNoSuchMatch: the server hosts no match of the name the token
	// or Config.Match gave (server.Host). Lasting: the client gives up.
	ReasonNoSuchMatch = Reason(session.ReasonNoSuchMatch)
)

// String is the reason as a user reads it ("server full").
func (r Reason) String() string { return session.Reason(r).String() }
