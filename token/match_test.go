package token

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/tokenwire"
)

// Params.Match reaches the sealed part a server opens, and Issue refuses
// a name that is not one word of printable ASCII.
func TestIssueMatch(t *testing.T) {
	key, err := NewKey()
	if err != nil {
		t.Fatal(err)
	}
	srv := netip.MustParseAddrPort("203.0.113.7:27960")
	now := time.Unix(1_800_000_000, 0)
	tok, err := Issue(key, Params{ProtocolID: 42, Servers: []netip.AddrPort{srv}, Match: "duel-17"}, now)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tokenwire.NewOpener(tokenwire.Key(key), 42, []netip.AddrPort{srv}).Open(tokenwire.Of(tok).AppendPrivate(nil), now)
	if err != nil || p.Match != "duel-17" {
		t.Fatalf("opened match %q, %v", p.Match, err)
	}
	if _, err := Issue(key, Params{ProtocolID: 42, Servers: []netip.AddrPort{srv}, Match: "duel 17"}, now); err == nil {
		t.Fatal("a match name with a space issued")
	}
}
