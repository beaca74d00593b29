package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/q3/capture"
	"github.com/snapwire/snapwire/internal/q3/demo"
	"github.com/snapwire/snapwire/internal/q3/msg"
	"github.com/snapwire/snapwire/internal/q3/netchan"
	"github.com/snapwire/snapwire/internal/q3/oob"
)

// session describes one recorded session of q3/testdata (README there).
type session struct {
	pcap, demo      string
	serverPort      uint16
	protocol        int
	clientChallenge int32
	qport           uint16
	serverID        int32
}

var sessions = []session{
	{"session-68.pcap", "session-68.dm_68", 27970, 68, 1760966064, 28363, 838},
	{"session-71.pcap", "session-71.dm_71", 27971, 71, -1832221471, 10933, 638},
}

func loadDatagrams(t testing.TB, name string) []capture.Datagram {
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

// clientCommands returns the reliable commands the real client sent, by
// number, as package capture decodes them (its log quotes them with %q),
// and when it first sent its "disconnect".
func clientCommands(t *testing.T, name string) (map[int32]string, time.Duration) {
	t.Helper()
	data, err := os.ReadFile("../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	if _, err := capture.DecodePcap(bytes.NewReader(data), capture.Options{Log: &log}); err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`^\s+clc_clientCommand (\d+) (".*")$`)
	hdr := regexp.MustCompile(`^\s*([0-9.]+) C->S seq=`)
	cmds := map[int32]string{}
	var at, quit time.Duration
	sc := bufio.NewScanner(&log)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if h := hdr.FindStringSubmatch(sc.Text()); h != nil {
			sec, _ := strconv.ParseFloat(h[1], 64)
			at = time.Duration(sec * float64(time.Second))
		}
		m := re.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[1])
		text, err := strconv.Unquote(m[2])
		if err != nil {
			t.Fatalf("unquote %s: %v", m[2], err)
		}
		cmds[int32(n)] = text
		if text == "disconnect" && quit == 0 {
			quit = at
		}
	}
	return cmds, quit
}

// sentPacket is one packet the client sent, at a virtual time.
type sentPacket struct {
	at  time.Duration
	pkt []byte
}

// replay drives a client in virtual time with the server packets of a
// capture, at their recorded times. The client queues the same reliable
// commands the real client sent (the legacy XOR keys of the server's
// messages depend on their text). onMessage runs after each server packet.
func replay(t *testing.T, s session, cfg Config, onPacket func(c *Client, now time.Duration)) (*Client, []sentPacket) {
	t.Helper()
	dg := loadDatagrams(t, s.pcap)
	cmds, quitAt := clientCommands(t, s.pcap)
	var sent []sentPacket
	var now time.Duration
	cfg.Protocol, cfg.ClientChallenge, cfg.QPort = s.protocol, s.clientChallenge, s.qport
	c, err := New(cfg, func(p []byte) { sent = append(sent, sentPacket{now, append([]byte(nil), p...)}) })
	if err != nil {
		t.Fatal(err)
	}
	queued, quit := false, false
	var next time.Duration
	for _, d := range dg {
		if d.Src.Port() != s.serverPort {
			continue
		}
		for next <= d.Time && c.Phase() != Disconnected {
			now = next
			next = max(c.Advance(now), now+time.Millisecond)
		}
		now = d.Time
		if !quit && now >= quitAt {
			// The real client quit here: its "disconnect" command keys the
			// server's last messages. (Disconnect would stop the parsing.)
			quit = true
			if err := c.AddCommand("disconnect"); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.HandlePacket(now, d.Payload); err != nil {
			t.Logf("%v: %v", now, err) // counted in Stats, checked by the caller
		}
		if !queued && c.Phase() >= Connected {
			queued = true
			for i := int32(1); cmds[i] != "" && cmds[i] != "disconnect"; i++ {
				if err := c.AddCommand(cmds[i]); err != nil {
					t.Fatal(err)
				}
			}
		}
		if c.Phase() != Disconnected {
			next = max(c.Advance(now), now+time.Millisecond) // as Run does after each packet
		}
		if onPacket != nil {
			onPacket(c, now)
		}
	}
	return c, sent
}

// TestReplaySessions feeds the server side of the real sessions to the
// client: it must follow the handshake, parse every message (legacy XOR
// keyed on its own reliable commands for 68), see the bots move, and be
// dropped by the server's final "disconnect" command.
func TestReplaySessions(t *testing.T) {
	for _, s := range sessions {
		t.Run(s.pcap, func(t *testing.T) {
			c, sent := replay(t, s, Config{Name: "replay"}, nil)
			st := c.Stats()
			t.Logf("%+v", st)
			if st.ParseErrors != 0 || st.NetchanErrors != 0 {
				t.Fatalf("parse errors %d, netchan errors %d: %v", st.ParseErrors, st.NetchanErrors, st.Errors)
			}
			if st.Snapshots < 290 || st.InvalidSnapshots != 0 || st.TimeNotRising != 0 {
				t.Errorf("snapshots %d invalid %d not rising %d", st.Snapshots, st.InvalidSnapshots, st.TimeNotRising)
			}
			if st.ServerID != s.serverID {
				t.Errorf("serverId %d, want %d", st.ServerID, s.serverID)
			}
			if s.protocol == 68 && (st.EntitiesMoved == 0 || st.PlayersMoved == 0) {
				t.Errorf("no entity seen moving: %+v", st)
			}
			if st.Framing != map[int]string{68: "legacy", 71: "ioq3-checksum"}[s.protocol] {
				t.Errorf("framing %q", st.Framing)
			}
			if !errors.Is(c.Err(), ErrDisconnected) {
				t.Errorf("end: phase %v err %v, want the server's disconnect", c.Phase(), c.Err())
			}
			checkSent(t, s, c, sent)
		})
	}
}

// checkSent decodes what the client sent the way a server does: OOB
// handshake, then netchan, legacy XOR and client messages with their
// usercmd key.
func checkSent(t *testing.T, s session, c *Client, sent []sentPacket) {
	t.Helper()
	if len(sent) < 3 {
		t.Fatalf("%d packets sent", len(sent))
	}
	gc, err := oob.ParseClientPacket(sent[0].pkt)
	if err != nil || gc.(*oob.GetChallenge).ClientChallenge != strconv.Itoa(int(s.clientChallenge)) {
		t.Fatalf("first packet %q: %v", sent[0].pkt, err)
	}
	var challenge int32
	var sv *netchan.Chan
	framing := netchan.Checksummed
	if s.protocol == 68 {
		framing = netchan.Legacy
	}
	moves, cmdsSeen, lastTime := 0, 0, int32(0)
	for i, p := range sent {
		if oob.IsOOB(p.pkt) {
			m, err := oob.ParseClientPacket(p.pkt)
			if err != nil {
				t.Fatalf("packet %d: %v", i, err)
			}
			if cn, ok := m.(*oob.Connect); ok {
				info, err := oob.ParseInfo(cn.Userinfo, oob.MaxInfoString)
				if err != nil {
					t.Fatal(err)
				}
				v, _ := strconv.Atoi(info.Value("challenge"))
				challenge = int32(v)
				if info.Value("qport") != strconv.Itoa(int(s.qport)) || info.Value("protocol") != strconv.Itoa(s.protocol) || info.Value("name") != "replay" {
					t.Fatalf("userinfo %q", cn.Userinfo)
				}
				sv = netchan.NewChan(netchan.ServerToClient, framing, 0, challenge)
			}
			continue
		}
		if sv == nil {
			t.Fatalf("packet %d: netchan before connect", i)
		}
		m, _, ok, err := sv.Process(p.pkt)
		if err != nil || !ok {
			t.Fatalf("packet %d: netchan ok=%v err=%v", i, ok, err)
		}
		m = append([]byte(nil), m...)
		r := msg.NewReader(m)
		serverID, msgAck, relAck := r.ReadInt32(), r.ReadInt32(), r.ReadInt32()
		last := c.State().ServerCommand(relAck)
		if framing == netchan.Legacy {
			netchan.ClientXOR(m, challenge, serverID, msgAck, last)
		}
		cm, err := msg.ParseClientMessage(m, c.State().ChecksumFeed, c.State().ServerCommand)
		if err != nil {
			t.Fatalf("packet %d (ack %d/%d): %v", i, msgAck, relAck, err)
		}
		for _, o := range cm.Ops {
			switch o := o.(type) {
			case *msg.Move:
				moves++
				if len(o.Cmds) != 2 && moves > 2 {
					t.Fatalf("packet %d: %d usercmds, want 2 (packetdup 1)", i, len(o.Cmds))
				}
				for _, u := range o.Cmds {
					if u.ServerTime > lastTime {
						if lastTime != 0 && u.ServerTime-lastTime > 100 {
							t.Errorf("packet %d: usercmd time jumps %d -> %d", i, lastTime, u.ServerTime)
						}
						lastTime = u.ServerTime
					}
				}
			case *msg.ClientCommand:
				cmdsSeen++
			}
		}
	}
	if moves < 500 || cmdsSeen == 0 {
		t.Errorf("moves %d, client commands %d", moves, cmdsSeen)
	}
}

// TestReplayRecord records the replayed sessions from the moment the real
// client started its demo: every record must equal the real client's
// demo byte for byte, the rebuilt gamestate included.
func TestReplayRecord(t *testing.T) {
	for _, s := range sessions {
		t.Run(s.demo, func(t *testing.T) {
			real := readDemo(t, "../testdata/"+s.demo)
			startAt := real[0].Sequence + 1 // CL_Record_f tags the gamestate with serverMessageSequence - 1
			var buf bytes.Buffer
			recording := false
			c, _ := replay(t, s, Config{Name: "replay"}, func(c *Client, now time.Duration) {
				if !recording && c.State().ServerMessageSequence == startAt {
					recording = true
					if err := c.Record(&buf); err != nil {
						t.Fatal(err)
					}
				}
			})
			n, err := c.StopRecord()
			if err != nil {
				t.Fatal(err)
			}
			var ours []demo.Message
			dr := demo.NewReader(bytes.NewReader(buf.Bytes()))
			for {
				m, err := dr.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				ours = append(ours, demo.Message{Sequence: m.Sequence, Data: append([]byte(nil), m.Data...)})
			}
			if !dr.Terminated || n != len(ours) {
				t.Fatalf("terminated %v, %d records written, %d read", dr.Terminated, n, len(ours))
			}
			// The real demo ends at the client's quit; ours at the server's
			// disconnect a few messages later.
			if len(ours) < len(real) {
				t.Fatalf("%d records, real demo %d", len(ours), len(real))
			}
			for i := range real {
				a, b := ours[i].Data, real[i].Data
				if i == 0 && len(a) == len(b) && len(a) > 0 {
					// The engine's gamestate buffer is not cleared: when the
					// message ends on a byte boundary its last byte (the
					// engine's cursize counts bits/8+1) is stack garbage.
					a, b = a[:len(a)-1], b[:len(b)-1]
				}
				if ours[i].Sequence != real[i].Sequence || !bytes.Equal(a, b) {
					t.Fatalf("record %d: seq %d len %d, real seq %d len %d", i, ours[i].Sequence, len(ours[i].Data), real[i].Sequence, len(real[i].Data))
				}
			}
			sum, err := capture.DecodeDemo(bytes.NewReader(buf.Bytes()), capture.Options{})
			if err != nil || sum.ParseErrors != 0 {
				t.Fatalf("our demo: %v %v", err, sum.Errors)
			}
			t.Logf("%d records, identical to the real client's %d, %d snapshots", len(ours), len(real), sum.Snapshots)
		})
	}
}

func readDemo(t *testing.T, name string) []demo.Message {
	t.Helper()
	if name == "" {
		return nil
	}
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dr := demo.NewReader(f)
	var out []demo.Message
	for {
		m, err := dr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, demo.Message{Sequence: m.Sequence, Data: append([]byte(nil), m.Data...)})
	}
}
