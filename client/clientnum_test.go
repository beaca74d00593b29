package client

import (
	"bytes"
	"net/netip"
	"testing"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
)

// A client numbered above 255 (session version 5, issue 25) takes its
// number from the accept; an accept naming a number of game.MaxClients or
// more is malformed and ignored, and the client goes on waiting for a
// good one.
//
// Guards against: a client number cut to 8 bits, and a hostile accept
// that names a slot no server has.
func TestAcceptOfHighClientNumber(t *testing.T) {
	var out [][]byte
	c, err := New(Config{}, testgame.New(), InputFunc(func(in Input) game.UserCmd { return game.UserCmd{} }),
		SendFunc(func(to netip.AddrPort, p []byte) { out = append(out, bytes.Clone(p)) }))
	if err != nil {
		t.Fatal(err)
	}
	srv := netip.MustParseAddrPort("10.0.0.1:27960")
	c.Connect(0, srv)
	// The getchallenge, answered with a challenge; then the connect.
	gc, err := session.ParseGetChallenge(out[len(out)-1][4:])
	if err != nil {
		t.Fatal(err)
	}
	c.HandlePacket(0, netchan.AppendConnectionless(nil, session.Challenge{Nonce: gc.Nonce, Cookie: session.Cookie{1}}.Append(nil)))
	conn, err := session.ParseConnect(out[len(out)-1][4:])
	if err != nil {
		t.Fatal(err)
	}
	accept := func(n game.ClientNum) []byte {
		return netchan.AppendConnectionless(nil, session.Accept{Nonce: conn.Nonce, ConnID: 7, Client: n, GameID: 1,
			FrameDur: 16666, Settings: testgame.DefaultSettings}.Append(nil))
	}
	c.HandlePacket(0, accept(game.MaxClients))
	if c.State() == Connected {
		t.Fatalf("an accept of client %d taken", game.MaxClients)
	}
	c.HandlePacket(0, accept(1000))
	if c.State() != Connected || c.ClientNum() != 1000 {
		t.Fatalf("after an accept of client 1000: %v, client %d, %v", c.State(), c.ClientNum(), c.Err())
	}
}
