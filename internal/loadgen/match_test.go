package loadgen

import (
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// A light client sends Config.Match in its connect, as client.Client
// does, and a plain server, which hosts only the default match, refuses
// it ("no such match"); New refuses a name a server could not parse.
func TestLightClientMatch(t *testing.T) {
	s := newLightSim(t, 5, netsim.LinkConfig{Latency: 10 * time.Millisecond}, server.Config{})
	var sent []string
	s.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool {
		if from == lightAddr(0) && netchan.IsConnectionless(p) && len(p) > 4 && session.Kind(p[4]) == session.KindConnect {
			m, err := session.ParseConnect(p[4:])
			if err != nil {
				t.Errorf("connect: %v", err)
			}
			sent = append(sent, m.Match)
		}
		return false
	})
	c := s.add(Config{Match: "duel-17"}, arenaBases())
	s.run(2 * time.Second)
	if c.State() == Connected || c.Err() == nil || !strings.Contains(c.Err().Error(), "no such match") || len(sent) == 0 || sent[0] != "duel-17" {
		t.Fatalf("light client %v %v; its connects carried matches %q", c.State(), c.Err(), sent)
	}
	if _, err := New(Config{Match: "duel 17"}, arenaBases(), session.SendFunc(func(netip.AddrPort, []byte) {})); err == nil {
		t.Fatal("a match name with a space accepted")
	}
}
