package server

import (
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netchan"
	"github.com/snapwire/snapwire/proto"
)

// BenchmarkFrame8Clients: one server frame with 8 connected clients, each
// sending one command message per frame; snapshots at 20 Hz.
func BenchmarkFrame8Clients(b *testing.B) {
	var bytesOut int
	s, err := New(Config{Seed: 1}, testgame.New(), "map=one,movers=30,doors=10,drones=4,period=97",
		SendFunc(func(to netip.AddrPort, p []byte) { bytesOut += len(p) }))
	if err != nil {
		b.Fatal(err)
	}
	r := &rec{}
	s.send = r
	type fake struct {
		ch   *netchan.Channel
		addr netip.AddrPort
	}
	var fakes []fake
	for i := range 8 {
		acc, err := proto.ParseAccept(handshake(b, s, r, 0, addr(i+1), goodConnect(uint64(i+1))))
		if err != nil {
			b.Fatal(err)
		}
		fakes = append(fakes, fake{netchan.New(netchan.Config{}, acc.ConnID), addr(i + 1)})
	}
	s.send = SendFunc(func(to netip.AddrPort, p []byte) { bytesOut += len(p) })
	msgs := make([][]byte, 4096)
	for f := range msgs {
		msgs[f] = cmdMsg(s.GameID(), 0, s.Frame()+1+fakesFrame(f))
	}
	f := 0
	b.ReportAllocs()
	for b.Loop() {
		now := s.Next()
		for _, fk := range fakes {
			fk.ch.Send(now-time.Millisecond, proto.TypeCommands, msgs[f%len(msgs)], func(p []byte) { s.HandlePacket(now-time.Millisecond, fk.addr, p) })
		}
		s.Advance(now)
		f++
	}
	b.ReportMetric(float64(bytesOut)/float64(b.N), "bytes/frame")
}

func fakesFrame(f int) game.Frame { return game.Frame(f) }
