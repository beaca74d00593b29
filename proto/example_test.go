package proto_test

import (
	"fmt"

	"github.com/snapwire/snapwire/proto"
)

// A refusal as the server sends it and the client reads it: a few bytes
// whatever the reason, which the client names itself.
func Example() {
	b := proto.Refuse{Nonce: 7, Reason: proto.ReasonServerFull}.Append(nil)
	kind, _ := proto.ConnectionlessKind(b)
	m, err := proto.ParseRefuse(b)
	fmt.Println(kind == proto.KindRefuse, len(b), m.Nonce, m.Reason, err)
	// Output: true 11 7 server full <nil>
}
