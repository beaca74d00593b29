package client

// A hand-written codec that misreads ends the session (issue 24 part 1):
// the snapshot decoder finds an entity or state whose ReadSnapshot did not
// read what its WriteSnapshot wrote (internal/snapshot, codeccheck.go), and
// the client stops with an error that names it, rather than counting
// decode errors while every later snapshot of that entity fails.

import (
	"errors"

	"github.com/snapwire/snapwire/internal/snapshot"
)

// ErrCodecMismatch: an entity's (or state's) ReadSnapshot does not read
// what its WriteSnapshot wrote, in the same order and widths. The client's
// error names the entity, its type and the bits read and written, e.g.
// `client: snapshot: entity 12 of type "guide.Dot": ReadSnapshot read 21
// bits, WriteSnapshot wrote 20`; errors.Is(err, ErrCodecMismatch) holds for
// it. Declared fields (game.Declared) have generated codecs that cannot
// differ.
var ErrCodecMismatch = errors.New("client: ReadSnapshot does not read what WriteSnapshot wrote")

// codecError is the session's end for a snapshot.CodecError.
type codecError struct{ err *snapshot.CodecError }

func (e *codecError) Error() string        { return "client: snapshot: " + e.err.Error() }
func (e *codecError) Is(target error) bool { return target == ErrCodecMismatch }
func (e *codecError) Unwrap() error        { return e.err }

// codecMismatch returns the error that ends the session if err is a
// snapshot.CodecError. The snapshot came through the channel, which on a
// secure session has authenticated it (netchan): only the server's own
// bits end a secure session.
func codecMismatch(err error) error {
	var ce *snapshot.CodecError
	if errors.As(err, &ce) {
		return &codecError{ce}
	}
	return nil
}
