package token_test

import (
	"bytes"
	"fmt"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/token"
)

// A backend issues a token for one client and one server and hands it
// over as text; the client parses it and gives it to client.Config.Token.
// A server whose Config.TokenKey is the same key accepts its connect.
func Example() {
	key, err := token.NewKey() // once; kept in a key file (key.String())
	if err != nil {
		panic(err)
	}
	server := netip.MustParseAddrPort("203.0.113.7:27960")
	tok, err := token.Issue(key, token.Params{ProtocolID: 42, ClientID: 1001, Servers: []netip.AddrPort{server}}, time.Now())
	if err != nil {
		panic(err)
	}
	text := tok.String() // sent to the client over HTTPS
	got, err := token.Parse(text)
	fmt.Println(err, bytes.Equal(got.Marshal(), tok.Marshal()))

	back, err := token.ParseKey(key.String())
	fmt.Println(err, back == key)
	// Output:
	// <nil> true
	// <nil> true
}
