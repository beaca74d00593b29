package client_test

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
)

// lonelyConnect runs one client core over netsim in virtual time against
// answer, which sees every datagram that reaches serverAddr and returns
// the reply (nil: silence), until the client disconnects or 30 s pass. It
// returns the client and the virtual time at which it gave up.
func lonelyConnect(t *testing.T, cfg client.Config, answer func(p []byte) []byte) (*client.Client, time.Duration) {
	t.Helper()
	net := netsim.New(5)
	net.SetDefault(netsim.LinkConfig{Latency: 20 * time.Millisecond})
	srv, err := net.Listen(serverAddr)
	if err != nil {
		t.Fatal(err)
	}
	ep, err := net.Listen(clientAddr(0))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, testgame.New(), client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{Frame: in.Frame} }),
		client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
	if err != nil {
		t.Fatal(err)
	}
	c.Connect(0, serverAddr)
	buf := make([]byte, 2048)
	for now := time.Duration(0); now <= 30*time.Second; now += 5 * time.Millisecond {
		net.AdvanceTo(now)
		for {
			n, from, ok := srv.ReadFrom(buf)
			if !ok {
				break
			}
			if answer != nil {
				if r := answer(buf[:n]); r != nil {
					srv.WriteTo(r, from)
				}
			}
		}
		for {
			n, _, ok := ep.ReadFrom(buf)
			if !ok {
				break
			}
			c.HandlePacket(now, buf[:n])
		}
		c.Advance(now)
		if c.State() == client.Disconnected {
			return c, now
		}
	}
	t.Fatalf("client still %v after 30 s", c.State())
	return nil, 0
}

// Nothing at the server's address: the client gives up at its connect
// timeout with an error that names the address and what to check, and
// that is still ErrConnectTimeout.
//
// Guards against: a bot that sits in "challenging" and reports only its
// state (issue 21).
func TestConnectNoAnswerHint(t *testing.T) {
	c, at := lonelyConnect(t, client.Config{ConnectTimeout: 3 * time.Second}, nil)
	if at < 3*time.Second || at > 3*time.Second+10*time.Millisecond {
		t.Errorf("gave up at %v, want at the 3 s connect timeout", at)
	}
	err := c.Err()
	var na *client.NoAnswerError
	if !errors.Is(err, client.ErrConnectTimeout) || !errors.As(err, &na) || na.Server != serverAddr {
		t.Fatalf("error %v (%T)", err, err)
	}
	for _, want := range []string{"no answer from " + serverAddr.String() + " after 3s", "snapwire server running", "port", "firewall"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}

// A Quake 3 server at the address: it ignores snapwire's handshake but
// answers the Quake 3 getchallenge the client adds to its retries (from
// the third getchallenge on) with
// "challengeResponse" (as OpenArena does); the client stops at once with
// an error naming Quake 3. Any Quake 3 shaped answer ("print", ...) does
// the same.
//
// Guards against: a bot pointed at a Quake 3 server that waits out its
// timeout without saying what it found (issue 21).
func TestConnectQuake3ServerNamed(t *testing.T) {
	for _, reply := range []string{"challengeResponse -1839643515 %s 71", "print\nServer uses protocol version 71.\n", "disconnect"} {
		asked := 0
		c, at := lonelyConnect(t, client.Config{ConnectTimeout: 10 * time.Second}, func(p []byte) []byte {
			if !netchan.IsConnectionless(p) {
				return nil
			}
			cmd, ok := strings.CutPrefix(string(p[4:]), "getchallenge ")
			if !ok {
				return nil // snapwire's getchallenge: a bad connectionless packet to Quake 3
			}
			asked++
			return append([]byte{0xff, 0xff, 0xff, 0xff}, strings.Replace(reply, "%s", cmd, 1)...)
		})
		var q3 *client.Quake3Error
		if err := c.Err(); !errors.As(err, &q3) || !strings.Contains(err.Error(), "Quake 3 server") ||
			!strings.Contains(err.Error(), serverAddr.String()) || q3.Reply != strings.Fields(reply)[0] {
			t.Fatalf("%q: error %v (%T)", reply, err, err)
		}
		if asked == 0 || at > 2*time.Second {
			t.Errorf("%q: %d Quake 3 probes, gave up at %v: want a probe after two unanswered getchallenges", reply, asked, at)
		}
	}
}
