package tokenwire_test

import (
	"fmt"
	"net/netip"
	"time"

	"github.com/snapwire/snapwire/internal/tokenwire"
)

// A backend issues a token for one client and one server; the server
// opens the private part the client's connect carries.
func Example() {
	key, err := tokenwire.NewKey()
	if err != nil {
		panic(err)
	}
	server := netip.MustParseAddrPort("203.0.113.7:27960")
	now := time.Now()
	tok, err := tokenwire.Issue(key, tokenwire.Params{ProtocolID: 42, ClientID: 1001, Servers: []netip.AddrPort{server}}, now)
	if err != nil {
		panic(err)
	}
	// The client sends tok.AppendPrivate(nil) in its connect; the server:
	priv, err := tokenwire.NewOpener(key, 42, []netip.AddrPort{server}).Open(tok.AppendPrivate(nil), now)
	fmt.Println(priv.ClientID, err, priv.ClientToServerKey == tok.ClientToServerKey)

	// Another server's address is refused.
	_, err = tokenwire.NewOpener(key, 42, []netip.AddrPort{netip.MustParseAddrPort("198.51.100.1:27960")}).Open(tok.AppendPrivate(nil), now)
	fmt.Println(err != nil)
	// Output:
	// 1001 <nil> true
	// true
}
