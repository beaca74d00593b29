package bitmsg_test

import (
	"bytes"
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/internal/bitlayout"
)

// player is game code: it writes and reads its own state (DOOM III §5 WriteToSnapshot /
// ReadFromSnapshot), choosing a width or quantiser for every variable (§4.1).
type player struct {
	Health   int32      // 0..100: 7 bits
	Origin   [3]float32 // full precision, so prediction does not miss collisions
	Velocity [3]float32 // 16-bit floats
	Yaw      float32    // 16-bit angle
	Firing   bool
}

func (p *player) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteRangedInt(p.Health, 0, 100)
	for _, v := range p.Origin {
		w.WriteFloat(v)
	}
	for _, v := range p.Velocity {
		w.WriteHalf(v)
	}
	w.WriteAngle16(p.Yaw)
	w.WriteBool(p.Firing)
}

func (p *player) ReadSnapshot(r *bitmsg.DeltaReader) {
	p.Health = r.ReadRangedInt(0, 100)
	for i := range p.Origin {
		p.Origin[i] = r.ReadFloat()
	}
	for i := range p.Velocity {
		p.Velocity[i] = r.ReadHalf()
	}
	p.Yaw = r.ReadAngle16()
	p.Firing = r.ReadBool()
}

// snap is what the snapshot encoder and decoder (internal/snapshot) use to start an entity and
// take its new state: not a game's business, so reached through internal/bitlayout.
var snap = bitlayout.Get[bitmsg.Writer, bitmsg.DeltaWriter, bitmsg.DeltaReader, bitmsg.Reader]()

// Example plays the snapshot encoder's and decoder's part around a game's WriteSnapshot and
// ReadSnapshot.
func Example() {
	var (
		serverBase, clientBase []byte // the entity's state in the common base, both sides
		stateBuf               = make([]byte, 64)
		clientState            = make([]byte, 64)
		packet                 = make([]byte, 256)
	)
	dw, dr := new(bitmsg.DeltaWriter), new(bitmsg.DeltaReader)
	server := player{Health: 100, Origin: [3]float32{512, -64, 24}, Velocity: [3]float32{320, 0, 0}, Yaw: 90}

	snapshot := func(name string) {
		// Server: delta against its copy of the client's base.
		out := bitmsg.NewWriter(packet)
		snap.ResetWriter(dw, serverBase, len(serverBase)*8, out, stateBuf)
		server.WriteSnapshot(dw)
		if dw.Err() != nil {
			panic(dw.Err())
		}
		// The entity changed when its new state differs from the base (the snapshot encoder
		// asks the DeltaWriter the same question).
		st, nst := snap.WriterState(dw)
		changed := nst != len(serverBase)*8 || !bytes.Equal(st[:(nst+7)/8], serverBase)
		// Client: an unchanged entity is omitted from the snapshot (in == nil).
		var in *bitmsg.Reader
		sent := 0
		if changed {
			in = bitmsg.NewReader(out.Bytes(), out.Len())
			sent = out.Len()
		}
		var client player
		snap.ResetReader(dr, clientBase, len(clientBase)*8, in, clientState)
		client.ReadSnapshot(dr)
		if dr.Err() != nil {
			panic(dr.Err())
		}
		fmt.Printf("%-10s changed=%-5v sent %3d bits: health=%d origin=%v velocity=%v yaw=%v\n",
			name, changed, sent, client.Health, client.Origin, client.Velocity, client.Yaw)
		// Once the snapshot is acknowledged both sides apply the new state to the common base
		// (DOOM III §4.2); the two states are identical bit for bit.
		s, n := snap.WriterState(dw)
		c, _ := snap.ReaderState(dr)
		serverBase = append(serverBase[:0], s[:(n+7)/8]...)
		clientBase = append(clientBase[:0], c[:(n+7)/8]...)
		if !bytes.Equal(serverBase, clientBase) {
			panic("bases differ")
		}
	}

	snapshot("new") // 168 bits of fields + 9 flag bits

	server.Health = 75
	server.Velocity[0] = 318.6 // a half float: reads back as 318.5
	snapshot("hit")            // 9 flags + 7 (health) + 16 (velocity x)
	snapshot("idle")           // every field equals the base: omitted
	// Output:
	// new        changed=true  sent 177 bits: health=100 origin=[512 -64 24] velocity=[320 0 0] yaw=90
	// hit        changed=true  sent  32 bits: health=75 origin=[512 -64 24] velocity=[318.5 0 0] yaw=90
	// idle       changed=false sent   0 bits: health=75 origin=[512 -64 24] velocity=[318.5 0 0] yaw=90
}
