package proxy

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/q3/capture"
	"github.com/snapwire/snapwire/internal/q3/netchan"
	"github.com/snapwire/snapwire/netsim"
)

func loadPcap(t *testing.T, name string) []capture.Datagram {
	t.Helper()
	f, err := os.Open("../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out, err := capture.ReadDatagrams(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

type delivered struct {
	at  time.Duration
	dir Direction
	pkt []byte
}

// runRecorded pushes a recorded session through the proxy core in virtual
// time, as if its client and server were on either side.
func runRecorded(t *testing.T, pcap string, serverPort uint16, cfg Config) (*Proxy, []delivered) {
	t.Helper()
	dg := loadPcap(t, pcap)
	for _, d := range dg {
		if d.Dst.Port() == serverPort {
			cfg.Target = d.Dst
			break
		}
	}
	p, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var got []delivered
	drain := func(now time.Duration) {
		out, _, _, _ := p.Advance(now)
		for _, d := range out {
			got = append(got, delivered{now, d.Dir, bytes.Clone(d.Data)})
		}
	}
	step := func(until time.Duration) {
		for {
			next, ok := p.net.NextDelivery()
			if !ok || next > until {
				return
			}
			drain(next)
		}
	}
	for _, d := range dg {
		step(d.Time)
		if d.Dst.Port() == serverPort {
			if err := p.FromClient(d.Time, d.Src, d.Payload); err != nil {
				t.Fatal(err)
			}
		} else if err := p.FromServer(d.Time, d.Dst, d.Payload); err != nil {
			t.Fatal(err)
		}
		drain(d.Time)
	}
	step(time.Hour)
	return p, got
}

// TestRecordedSessions: with latency and no loss every packet comes out
// once, unchanged, late by the latency, and the tap decodes both
// directions of both framings without an error.
func TestRecordedSessions(t *testing.T) {
	for _, tc := range []struct {
		pcap      string
		port      uint16
		snapshots int
	}{{"session-68.pcap", 27970, 309}, {"session-71.pcap", 27971, 310}} {
		t.Run(tc.pcap, func(t *testing.T) {
			var log strings.Builder
			lat := 40 * time.Millisecond
			p, got := runRecorded(t, tc.pcap, tc.port, Config{Up: netsim.LinkConfig{Latency: lat}, Down: netsim.LinkConfig{Latency: lat}, Log: &log})
			dg := loadPcap(t, tc.pcap)
			if len(got) != len(dg) {
				t.Fatalf("%d packets delivered of %d", len(got), len(dg))
			}
			var up, down []capture.Datagram
			for _, d := range dg {
				if d.Dst.Port() == tc.port {
					up = append(up, d)
				} else {
					down = append(down, d)
				}
			}
			var gu, gd int
			for _, g := range got {
				want := &down[gd]
				if g.dir == netchan.ClientToServer {
					want = &up[gu]
					gu++
				} else {
					gd++
				}
				if !bytes.Equal(g.pkt, want.Payload) || g.at != want.Time+lat {
					t.Fatalf("packet at %v: differs or wrong time (sent %v)", g.at, want.Time)
				}
			}
			s := p.Tap().Stats()
			t.Logf("tap: %+v", s)
			if s.ParseErrors != 0 || s.NetchanErrors != 0 || s.Undecoded != 0 || s.Snapshots != tc.snapshots || s.ClientCommands == 0 || s.Usercmds == 0 {
				t.Fatalf("tap stats %+v\n%s", s, log.String()[:min(log.Len(), 3000)])
			}
			for _, want := range []string{"oob getchallenge", "oob challengeResponse", "oob connect \\challenge\\", "svc_gamestate", "clc_clientCommand 1 \"cp ", "svc_snapshot serverTime="} {
				if !strings.Contains(log.String(), want) {
					t.Errorf("log lacks %q", want)
				}
			}
		})
	}
}

// TestLoss: the link model drops what LinkConfig says, deterministically
// for a seed.
func TestLoss(t *testing.T) {
	cfg := Config{Up: netsim.LinkConfig{Loss: 0.2}, Down: netsim.LinkConfig{Loss: 0.2, Latency: 10 * time.Millisecond, Jitter: 5 * time.Millisecond}, Seed: 7}
	p, got := runRecorded(t, "session-71.pcap", 27971, cfg)
	st := p.Link()
	n := len(loadPcap(t, "session-71.pcap"))
	if int(st.Sent) != n || int(st.Delivered) != len(got) || st.Lost == 0 || int(st.Lost)+len(got) != n {
		t.Fatalf("sent %d delivered %d lost %d of %d", st.Sent, len(got), st.Lost, n)
	}
	if frac := float64(st.Lost) / float64(n); frac < 0.15 || frac > 0.25 {
		t.Errorf("lost %.2f, want about 0.2", frac)
	}
	_, again := runRecorded(t, "session-71.pcap", 27971, cfg)
	if len(again) != len(got) {
		t.Errorf("same seed, %d then %d delivered", len(got), len(again))
	}
}
