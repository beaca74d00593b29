package main

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/token"
)

// "token issue --match NAME" seals the match into the token (a server
// that hosts many matches admits its holder to that one), and refuses a
// name that is not one word of printable ASCII.
func TestTokenIssueMatch(t *testing.T) {
	keyFile := writeKeyFile(t)
	key, err := readKeyFile(keyFile)
	if err != nil {
		t.Fatal(err)
	}
	srv := netip.MustParseAddrPort("127.0.0.1:27960")
	code, out, errOut := cliRun("token", "issue", "--key-file", keyFile, "--server", srv.String(), "--match", "duel-17")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	tok, err := token.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	p, err := tokenwire.NewOpener(tokenwire.Key(key), arenaProtocolID, []netip.AddrPort{srv}).Open(tokenwire.Of(tok).AppendPrivate(nil), time.Now())
	if err != nil || p.Match != "duel-17" {
		t.Fatalf("opened match %q, %v", p.Match, err)
	}
	code, _, errOut = cliRun("token", "issue", "--key-file", keyFile, "--server", srv.String(), "--match", "duel 17")
	if code != 1 || !strings.Contains(errOut, "printable ASCII without spaces") {
		t.Errorf("--match \"duel 17\": exit %d, stderr %q", code, errOut)
	}
}
