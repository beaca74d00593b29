package tokenwire

import (
	"errors"
	"net/netip"
	"testing"
	"time"
)

// Open refuses a token created more than ClockSkew ahead of now, and takes
// one within it (issue 22, item 8).
func TestOpenCreateTime(t *testing.T) {
	key := Key{5: 5}
	srv := netip.MustParseAddrPort("192.0.2.1:27960")
	now := time.Unix(1_800_000_000, 0)
	o := NewOpener(key, 1, []netip.AddrPort{srv})
	for _, c := range []struct {
		ahead time.Duration
		want  error
	}{{0, nil}, {ClockSkew, nil}, {ClockSkew + 2*time.Second, ErrNotYetValid}, {time.Hour, ErrNotYetValid}} {
		tok, err := Issue(key, Params{ProtocolID: 1, Servers: []netip.AddrPort{srv}, Lifetime: 2 * time.Hour}, now.Add(c.ahead))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := o.Open(tok.AppendPrivate(nil), now); !errors.Is(err, c.want) && !(c.want == nil && err == nil) {
			t.Errorf("created %v ahead: %v, want %v", c.ahead, err, c.want)
		}
	}
}
