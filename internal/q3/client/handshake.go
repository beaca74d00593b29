package client

// The connectionless handshake (ioq3 CL_CheckForResend,
// CL_ConnectionlessPacket; the Quake 3 protocol description, "Initial
// handshake"): the connect userinfo, challengeResponse and connectResponse,
// and the detection of a protocol 71 server's framing.

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/snapwire/snapwire/internal/q3/netchan"
	"github.com/snapwire/snapwire/internal/q3/oob"
)

// userinfo is the connect userinfo, in the order ioq3 sends it.
func (c *Client) userinfo() (string, error) {
	var in oob.Info
	for _, kv := range [][2]string{
		{"challenge", strconv.Itoa(int(c.challenge))},
		{"qport", strconv.Itoa(int(c.qport))},
		{"protocol", strconv.Itoa(c.protocol)},
		{"name", c.cfg.Name},
		{"rate", strconv.Itoa(c.cfg.Rate)},
		{"snaps", strconv.Itoa(c.cfg.Snaps)},
		{"model", "sarge"},
		{"headmodel", "sarge"},
		{"handicap", "100"},
		{"color1", "4"},
		{"color2", "5"},
		{"sex", "male"},
		{"teamtask", "0"},
		{"cl_anonymous", "0"},
		{"cg_predictItems", "1"},
		{"cl_guid", c.guid}, // OpenArena refuses a client without one ("Invalid GUID")
	} {
		if err := in.Set(kv[0], kv[1]); err != nil {
			return "", err
		}
	}
	for _, kv := range c.cfg.Userinfo {
		if err := in.Set(kv.Key, kv.Value); err != nil {
			return "", err
		}
	}
	return in.String(), nil
}

// detectFraming picks the framing of a protocol 71 session from the
// server's first netchan packet. ioq3's SV_DirectConnect gives a client the
// legacy framing ("compat") when the protocol it announces equals
// com_legacyprotocol, which it checks before com_protocol: Debian's stock
// openarena-server has both at 71, so it frames protocol 71 the legacy way,
// while a dual-mode server (com_legacyprotocol 68) checksums it. A
// checksummed packet carries challenge ^ sequence*challenge after the
// sequence (a 32-bit match on a challenge an off-path sender has not
// seen); anything else is legacy. Our own packets sent before the switch
// were in the wrong framing; the server took them as garbage and resends
// the gamestate until one of the right framing arrives.
func (c *Client) detectFraming(pkt []byte) {
	h, _, err := netchan.ParseHeader(pkt, netchan.ServerToClient, netchan.Checksummed)
	if err != nil {
		return // too short to tell: Process rejects it
	}
	c.framingOpen = false
	if h.Checksum == netchan.GenChecksum(c.challenge, h.Sequence) {
		return
	}
	c.framing, c.ch.Framing = netchan.Legacy, netchan.Legacy
	c.logf("the server frames protocol %d the legacy way (com_legacyprotocol %d): switching", c.protocol, c.protocol)
}

func (c *Client) handleOOB(now time.Duration, pkt []byte) error {
	m, err := oob.ParseServerPacket(pkt)
	if err != nil {
		return err
	}
	switch m := m.(type) {
	case *oob.ChallengeResponse:
		if c.phase != Challenging {
			return nil
		}
		if m.NArgs >= 2 && m.ClientChallenge != c.clientChallenge {
			return fmt.Errorf("client: challengeResponse for client challenge %d, ours is %d", m.ClientChallenge, c.clientChallenge)
		}
		c.challenge = m.Challenge
		if c.protocol == 0 {
			c.protocol = 71
			if m.NArgs >= 3 && (m.Protocol == 68 || m.Protocol == 71) {
				c.protocol = int(m.Protocol)
			}
		}
		c.logf("challengeResponse %d (server protocol %d, ours %d)", m.Challenge, m.Protocol, c.protocol)
		c.phase, c.resendAt, c.resends = Connecting, now, 0
	case *oob.ConnectResponse:
		if c.phase != Connecting {
			return nil
		}
		if m.HasChallenge && m.Challenge != c.challenge {
			return fmt.Errorf("client: connectResponse for challenge %d, ours is %d", m.Challenge, c.challenge)
		}
		c.framing = netchan.Checksummed
		if c.cfg.Framing == FramingLegacy || (c.cfg.Framing == FramingAuto && c.protocol == 68) {
			c.framing = netchan.Legacy
		}
		c.framingOpen = c.cfg.Framing == FramingAuto && c.framing == netchan.Checksummed
		c.ch = netchan.NewChan(netchan.ClientToServer, c.framing, c.qport, c.challenge)
		c.logf("connectResponse: %s framing, qport %d", c.framing, c.qport)
		c.phase, c.nextPacket, c.lastRx = Connected, now, now
	case *oob.Print:
		text := strings.TrimSpace(m.Text)
		c.logf("print: %s", text)
		if c.phase == Challenging || c.phase == Connecting {
			c.fail(fmt.Errorf("%w: %s", ErrRefused, text))
		}
	case *oob.Disconnect:
		if c.phase >= Connected {
			c.fail(fmt.Errorf("%w: server sent disconnect", ErrDisconnected))
		}
	}
	return nil
}
