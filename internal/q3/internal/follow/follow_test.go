package follow_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/snapwire/snapwire/internal/q3/capture"
	"github.com/snapwire/snapwire/internal/q3/internal/follow"
	"github.com/snapwire/snapwire/internal/q3/netchan"
	"github.com/snapwire/snapwire/internal/q3/oob"
)

// result is what following a recorded session gave.
type result struct {
	framing                  netchan.Framing
	server, client, parseErr int
	clientNum                int32
}

// followPcap follows the one connection of a recorded session (its server
// on serverPort), taking the challenge and qport from its handshake; a
// non-zero skew is added to the challenge, as an observer with the wrong
// key would have it.
func followPcap(t *testing.T, name string, serverPort uint16, skew int32) result {
	t.Helper()
	f, err := os.Open("../../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dgs, err := capture.ReadDatagrams(f)
	if err != nil {
		t.Fatal(err)
	}
	var c follow.Conn
	var qport int
	var r result
	for _, d := range dgs {
		dir := netchan.ClientToServer
		if d.Src.Port() == serverPort {
			dir = netchan.ServerToClient
		}
		if oob.IsOOB(d.Payload) {
			if dir == netchan.ClientToServer {
				if m, err := oob.ParseClientPacket(d.Payload); err == nil {
					if cn, ok := m.(*oob.Connect); ok {
						info, _ := oob.ParseInfo(cn.Userinfo, oob.MaxInfoString)
						qport, _ = strconv.Atoi(info.Value("qport"))
					}
				}
			} else if m, err := oob.ParseServerPacket(d.Payload); err == nil {
				if cr, ok := m.(*oob.ConnectResponse); ok {
					c.Challenge = cr.Challenge + skew
					c.Setup(uint16(qport))
				}
			}
			continue
		}
		if !c.Ready {
			t.Fatalf("%s: netchan packet before connectResponse", name)
		}
		p, err := c.Process(dir, d.Payload)
		if err != nil || !p.Complete {
			continue
		}
		if p.ParseErr != nil {
			r.parseErr++
		}
		if p.Server != nil {
			r.server++
		}
		if p.Client != nil {
			r.client++
		}
	}
	r.framing, r.clientNum = c.Framing, c.State.ClientNum
	return r
}

// The two recorded sessions (q3/testdata/README.md): protocol 68 with the
// legacy framing and XOR, protocol 71 with ioq3's checksum. Every message
// of both directions parses, the framing is found from the first packet,
// and the gamestate gives the client number.
//
// Guards against: a wrong XOR key (the command of the wrong number, the
// wrong direction's inputs), a framing guessed wrong, client commands not
// recorded for the server's keys.
func TestFollowRecordedSessions(t *testing.T) {
	for _, tc := range []struct {
		pcap string
		port uint16
		want result
	}{
		{"session-68.pcap", 27970, result{netchan.Legacy, 310, 416, 0, 3}},
		{"session-71.pcap", 27971, result{netchan.Checksummed, 311, 410, 0, 0}},
	} {
		if got := followPcap(t, tc.pcap, tc.port, 0); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.pcap, got, tc.want)
		}
	}
}

// An observer with the wrong challenge cannot read a legacy session: the
// XOR keys are wrong, and its messages do not parse.
func TestFollowWrongChallenge(t *testing.T) {
	got := followPcap(t, "session-68.pcap", 27970, 1)
	if got.parseErr == 0 {
		t.Errorf("with the wrong challenge every message parsed: %+v", got)
	}
}
