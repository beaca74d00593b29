package netchan

import (
	"crypto/cipher"
	"encoding/binary"

	"golang.org/x/crypto/chacha20poly1305"
)

// Keys are a connection's two session keys (from a connect token, package
// token). With them every packet is authenticated and encrypted with
// ChaCha20-Poly1305 (RFC 8439), as netcode.io encrypts its packets:
//
//	associated data: the 8-byte header and, for a fragment, its fragment
//	                 header (index, count, stream length), so none of the
//	                 clear fields can be changed;
//	nonce (12 bytes): 4 zero bytes, then the 64-bit little-endian value
//	                 sequence<<8 | fragment index, where sequence is the
//	                 full 32-bit message sequence reconstructed from the
//	                 header's 16 bits (package doc) — no nonce travels;
//	ciphertext:      the stream, then the 16-byte Poly1305 tag.
//
// Each direction has its own key, so the two ends never use one nonce
// with one key twice. A packet that fails to open is dropped before the
// channel changes any state (sequence, ack, reassembly, delivery) and is
// counted in Stats.AuthFailures. Replays are refused: the channel delivers
// messages in order, so a packet whose sequence is not newer than the last
// delivered one is never delivered, a repeated fragment of the message
// being reassembled is a duplicate, and a packet replayed after the 16-bit
// sequence wrapped reconstructs to a different sequence, so its nonce is
// wrong and it fails to open.
type Keys struct {
	Send [32]byte // this side's sending key (client→server on the client)
	Recv [32]byte // the peer's sending key
}

// TagLen is the bytes encryption adds to every packet: the Poly1305 tag.
const TagLen = chacha20poly1305.Overhead

// MaxSequenceJump is how far ahead of the last delivered message a packet's
// sequence may be. 2048 messages is 34 s of a 60 Hz sender, longer than any
// timeout; a packet claiming more is refused (ErrSequenceJump), so a forged
// plaintext packet cannot move the window arbitrarily far.
const MaxSequenceJump = 2048

type channelCrypto struct {
	send, recv cipher.AEAD
	nonce      [chacha20poly1305.NonceSize]byte // a field, not a local: no escape per packet
	dec        []byte
}

func newChannelCrypto(k *Keys) *channelCrypto {
	send, err := chacha20poly1305.New(k.Send[:])
	if err != nil {
		panic(err) // 32-byte key: cannot fail
	}
	recv, err := chacha20poly1305.New(k.Recv[:])
	if err != nil {
		panic(err)
	}
	return &channelCrypto{send: send, recv: recv}
}

func (cc *channelCrypto) setNonce(seq Sequence, frag int) []byte {
	binary.LittleEndian.PutUint64(cc.nonce[4:], uint64(seq)<<8|uint64(frag&0xFF))
	return cc.nonce[:]
}

// open authenticates and decrypts packet, whose clear part (header and
// fragment header) is the first ad bytes, as message seq. It returns the
// clear part followed by the plaintext, in the channel's own buffer.
func (cc *channelCrypto) open(packet []byte, ad int, seq Sequence, frag int) ([]byte, error) {
	if len(packet) < ad+TagLen {
		return nil, ErrAuth
	}
	cc.dec = grow(cc.dec, len(packet))
	copy(cc.dec, packet[:ad])
	out, err := cc.recv.Open(cc.dec[:ad], cc.setNonce(seq, frag), packet[ad:], packet[:ad])
	if err != nil {
		return nil, ErrAuth
	}
	return out, nil
}
