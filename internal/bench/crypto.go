package bench

import (
	"runtime"
	"time"

	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/refgame"
)

// Encryption is what secure sessions add to each packet (netchan.Keys,
// ChaCha20-Poly1305): measured on a channel pair at one scenario's mean
// doom3+huff payload, plaintext against encrypted, the same messages.
type Encryption struct {
	Scenario     string  `json:"scenario"`
	Payload      int     `json:"payload_bytes"`
	PlainBytes   float64 `json:"plain_bytes_per_packet"`
	SecureBytes  float64 `json:"encrypted_bytes_per_packet"`
	PlainNS      float64 `json:"plain_ns_per_packet"` // send + receive
	SecureNS     float64 `json:"encrypted_ns_per_packet"`
	AddedNS      float64 `json:"added_ns_per_packet"`
	AddedBytes   float64 `json:"added_bytes_per_packet"`
	SecureAllocs float64 `json:"encrypted_allocs_per_packet"`
}

// measureEncryption sends n messages of size bytes (a snapshot-like
// payload: mostly zero bytes, so compression works as on snapshots)
// through a plaintext and an encrypted channel pair, interleaved in rounds
// so both see the same machine load.
func measureEncryption(scenario string, size, n int) Encryption {
	payload := make([]byte, size)
	for i := range payload {
		if i%6 == 0 {
			payload[i] = byte(i * 31)
		}
	}
	var keyA, keyB netchan.Keys
	for i := range keyA.Send {
		keyA.Send[i], keyA.Recv[i] = byte(i), byte(i+101)
	}
	keyB.Send, keyB.Recv = keyA.Recv, keyA.Send
	type pair struct {
		a, b        *netchan.Channel
		ns          time.Duration
		bytes, pkts uint64
	}
	cfg := netchan.Config{Huffman: refgame.HuffmanTable()}
	secureA, secureB := cfg, cfg
	secureA.Keys, secureB.Keys = &keyA, &keyB
	pairs := [2]*pair{
		{a: netchan.New(cfg, 1), b: netchan.New(cfg, 1)},
		{a: netchan.New(secureA, 1), b: netchan.New(secureB, 1)},
	}
	var h nopHandler
	allocs := 0.0
	for round := range 10 {
		for k, p := range pairs {
			var emitBytes, emitPkts uint64
			emit := func(pk []byte) {
				emitBytes += uint64(len(pk))
				emitPkts++
				_ = p.b.Receive(0, pk, h)
			}
			start := time.Now()
			for i := range n / 10 {
				now := time.Duration(round*n+i) * time.Millisecond
				_ = p.a.Send(now, 1, payload, emit)
			}
			p.ns += time.Since(start)
			p.bytes += emitBytes
			p.pkts += emitPkts
			if k == 1 && round == 9 {
				allocs = allocsPer(func() { _ = p.a.Send(0, 1, payload, emit) })
			}
		}
	}
	e := Encryption{Scenario: scenario, Payload: size, SecureAllocs: allocs}
	e.PlainBytes = float64(pairs[0].bytes) / float64(pairs[0].pkts)
	e.SecureBytes = float64(pairs[1].bytes) / float64(pairs[1].pkts)
	e.PlainNS = float64(pairs[0].ns) / float64(pairs[0].pkts)
	e.SecureNS = float64(pairs[1].ns) / float64(pairs[1].pkts)
	e.AddedNS = e.SecureNS - e.PlainNS
	e.AddedBytes = e.SecureBytes - e.PlainBytes
	return e
}

// allocsPer is the mean heap allocations of 100 calls of f.
func allocsPer(f func()) float64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	before := ms.Mallocs
	for range 100 {
		f()
	}
	runtime.ReadMemStats(&ms)
	return float64(ms.Mallocs-before) / 100
}
