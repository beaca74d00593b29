package client_test

import (
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/server"
)

// pipe is an allocation-free in-process network with a fixed one-way
// latency: a ring of packet slots, delivered in order. (netsim copies each
// packet into a new slice, so it cannot show a zero-allocation steady
// state.)
type pipe struct {
	latency    time.Duration
	slots      [4096]pipeSlot
	head, tail int
}

type pipeSlot struct {
	at       time.Duration
	from, to netip.AddrPort
	n        int
	buf      [2048]byte
}

func (p *pipe) push(now time.Duration, from, to netip.AddrPort, pkt []byte) {
	if p.tail-p.head == len(p.slots) || len(pkt) > 2048 {
		panic("pipe overflow")
	}
	s := &p.slots[p.tail%len(p.slots)]
	s.at, s.from, s.to, s.n = now+p.latency, from, to, copy(s.buf[:], pkt)
	p.tail++
}

// steady is a server and its clients over a pipe, stepped every
// millisecond.
type steady struct {
	p   pipe
	srv *server.Server
	cls []*client.Client
	now time.Duration
}

func newSteady(t testing.TB, n int) *steady {
	st := &steady{p: pipe{latency: 30 * time.Millisecond}}
	var err error
	st.srv, err = server.New(serverhook.With(server.Config{Advanced: server.Advanced{VerifyBase: true}}, serverhook.Hooks{Seed: 9}), testgame.New(), testgame.DefaultSettings,
		server.SendFunc(func(to netip.AddrPort, pkt []byte) { st.p.push(st.now, serverAddr, to, pkt) }))
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		sc := &simClient{mode: botWander}
		from := clientAddr(i)
		c, err := client.New(client.Config{}, testgame.New(), botInput(sc, i),
			client.SendFunc(func(to netip.AddrPort, pkt []byte) { st.p.push(st.now, from, to, pkt) }))
		if err != nil {
			t.Fatal(err)
		}
		c.Connect(0, serverAddr)
		st.cls = append(st.cls, c)
	}
	return st
}

func (st *steady) run(d time.Duration) {
	end := st.now + d
	for st.now < end {
		st.now += time.Millisecond
		for st.p.head < st.p.tail && st.p.slots[st.p.head%len(st.p.slots)].at <= st.now {
			s := &st.p.slots[st.p.head%len(st.p.slots)]
			st.p.head++
			if s.to == serverAddr {
				st.srv.HandlePacket(st.now, s.from, s.buf[:s.n])
				continue
			}
			for i, c := range st.cls {
				if clientAddr(i) == s.to {
					c.HandlePacket(st.now, s.buf[:s.n])
				}
			}
		}
		st.srv.Advance(st.now)
		for _, c := range st.cls {
			c.Advance(st.now)
		}
	}
}

// Project rule: the client's Advance (command sampling, prediction,
// command messages) and HandlePacket of a snapshot with re-prediction
// allocate nothing in steady state, and neither does the server serving
// them. The scenario has everything a game does between map changes:
// entities leaving and re-entering the PVS, interpolated drones,
// unreliable (bounces) and reliable (doors) events, corrections smoothed.
func TestClientSteadyStateAllocs(t *testing.T) {
	st := newSteady(t, 4)
	st.run(60 * time.Second)
	before := make([]clienthook.Counters, len(st.cls))
	beforeOthers := make([]client.PredictionError, len(st.cls))
	for i, c := range st.cls {
		if c.State() != client.Connected {
			t.Fatalf("client %d: %v %v", i, c.State(), c.Err())
		}
		before[i] = clienthook.CountersOf(c)
		beforeOthers[i] = c.Stats().Others
	}
	allocs := testing.AllocsPerRun(100, func() { st.run(100 * time.Millisecond) })
	if allocs != 0 {
		t.Errorf("%v allocations per 100 ms (server and 4 clients)", allocs)
	}
	var snaps, repred, rel, unrel, corrections uint64
	for i, c := range st.cls {
		a := clienthook.CountersOf(c)
		snaps += a.SnapshotsReceived - before[i].SnapshotsReceived
		repred += a.Repredicted - before[i].Repredicted
		rel += a.ReliableEvents - before[i].ReliableEvents
		unrel += a.UnreliableEvents - before[i].UnreliableEvents
		corrections += c.Stats().Others.Wrong - beforeOthers[i].Wrong
		if a.BaseMismatches != 0 || a.DecodeErrors != 0 || a.ApplyErrors != 0 || a.BaseChecks == 0 {
			t.Errorf("client %d: %+v", i, a)
		}
	}
	t.Logf("in %v: %d snapshots, %d frames re-predicted, %d reliable and %d unreliable events, %d mispredictions",
		10*time.Second+100*time.Millisecond, snaps, repred, rel, unrel, corrections)
	if snaps < 4*150 || repred == 0 || rel == 0 || unrel == 0 {
		t.Errorf("the scenario lacks something: %d snapshots, %d re-predicted, %d/%d events", snaps, repred, rel, unrel)
	}
}

// BenchmarkClientFrame: one 60 Hz frame of a client (sampling, prediction,
// command message, and a third of a snapshot with its re-prediction) with
// its server; ns/op covers the server with 4 clients and the 4 clients.
func BenchmarkClientFrame(b *testing.B) {
	for _, n := range []int{1, 4} {
		b.Run(fmt.Sprintf("clients=%d", n), func(b *testing.B) {
			st := newSteady(b, n)
			st.run(20 * time.Second)
			b.ReportAllocs()
			for b.Loop() {
				st.run(time.Second / 60)
			}
		})
	}
}
