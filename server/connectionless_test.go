package server

import (
	"testing"

	"github.com/snapwire/snapwire/internal/serverhook"
)

// serverhook.SendConnectionless sends FF FF FF FF and the payload to the
// address through the server's Sender (snapwire serve's Quake 3 master
// heartbeat), and sends nothing else.
func TestSendConnectionless(t *testing.T) {
	s, r := newTest(t, Config{})
	serverhook.SendConnectionless(s, addr(3), []byte("heartbeat QuakeArena-1\n"))
	out := r.take()
	if len(out) != 1 || out[0].to != addr(3) || string(out[0].pkt) != "\xff\xff\xff\xffheartbeat QuakeArena-1\n" {
		t.Fatalf("sent %v", out)
	}
}
