package session_test

import (
	"fmt"

	"github.com/snapwire/snapwire/internal/session"
)

// A refusal as the server sends it and the client reads it: a few bytes
// whatever the reason, which the client names itself.
func Example() {
	b := session.Refuse{Nonce: 7, Reason: session.ReasonServerFull}.Append(nil)
	kind, _ := session.ConnectionlessKind(b)
	m, err := session.ParseRefuse(b)
	fmt.Println(kind == session.KindRefuse, len(b), m.Nonce, m.Reason, err)
	// Output: true 11 7 server full <nil>
}
