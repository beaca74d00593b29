package lockstep

import (
	"encoding/binary"

	"github.com/snapwire/snapwire/game"
)

// The match key of the tests' matches. (Run against the package before
// authentication, this file's helpers were replaced by ones that return
// their argument: see the attack tests.)

var testKey = MatchKey{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32}

// keyed is cfg with the test match key.
func keyed(cfg Config) Config { cfg.Key = testKey; return cfg }

// relayKeyed is cfg with the test match key.
func relayKeyed(cfg RelayConfig) RelayConfig { cfg.Key = testKey; return cfg }

// attackerKey is what an attacker without the match key seals with: the
// best forgery it can make is a well-formed packet under a wrong key.
var attackerKey = MatchKey{0xBA, 0xD}

// forgePeer is a peer packet in peer from's name to to (Config.Peers of
// peers: the server), sealed by an attacker without the match key.
func forgePeer(from, to, peers int, ack, first game.Frame, cmds []game.UserCmd, hashFrame game.Frame, hash uint64) []byte {
	s := newSealer(&attackerKey, false, byte(from), peers, maxServerPacket)
	id := byte(to)
	if to == peers {
		id = serverID
	}
	b := s.header(make([]byte, 0, maxServerPacket), 'L', id)
	b = binary.LittleEndian.AppendUint32(b, uint32(ack))
	b = binary.LittleEndian.AppendUint32(b, uint32(first))
	b = append(b, byte(len(cmds)))
	for _, c := range cmds {
		b = appendCmd(b, c)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(hashFrame))
	b = binary.LittleEndian.AppendUint64(b, hash)
	return s.seal(b)
}

// forgeServer is a server packet to peer to, sealed by an attacker
// without the match key: frames first.. with cmds[i] every peer's
// command for frame first+i.
func forgeServer(to, peers int, ack, first game.Frame, cmds [][]game.UserCmd) []byte {
	s := newSealer(&attackerKey, false, serverID, peers, maxServerPacket)
	b := s.header(make([]byte, 0, maxServerPacket), 'S', byte(to))
	b = binary.LittleEndian.AppendUint32(b, uint32(ack))
	b = binary.LittleEndian.AppendUint32(b, uint32(first))
	b = append(b, byte(len(cmds)), byte(peers))
	for _, f := range cmds {
		for _, c := range f {
			b = appendCmd(b, c)
		}
	}
	return s.seal(b)
}

// tamper flips a bit of a genuine peer packet's state hash in flight (its
// last byte; ChaCha20 is a stream cipher, so flipping a bit of the
// ciphertext flips the same bit of the plaintext, which the tag catches).
func tamper(pkt []byte) { pkt[len(pkt)-1-tagBytes] ^= 0x10 }

// authFailures and replayed are the drops a peer counted.
func authFailures(p *Peer) uint64 { return p.Stats().AuthFailures }
func replayed(p *Peer) uint64     { return p.Stats().Replayed }

// relayAuthFailures is the forged packets the server dropped.
func relayAuthFailures(r *Relay) uint64 { return r.Stats().AuthFailures }
