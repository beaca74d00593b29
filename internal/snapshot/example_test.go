package snapshot_test

import (
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// door is an entity with one networked variable.
type door struct{ open bool }

func (d *door) WriteSnapshot(w *bitmsg.DeltaWriter) { w.WriteBool(d.open) }
func (d *door) ReadSnapshot(r *bitmsg.DeltaReader)  { d.open = r.ReadBool() }

// Example shows one client's snapshot cycle: both ends load the map and
// initialise the common base from it; the server builds a snapshot, the
// client decodes it and acknowledges it; the server applies it and sends
// "apply S", and the client applies it too.
func Example() {
	reg := game.NewRegistry()
	doorType := reg.MustRegister(game.EntityType{Name: "door", New: func() game.Entity { return &door{} }})

	load := func() *game.EntityTable { // the map: two closed doors
		w := game.NewEntityTable(reg)
		w.Spawn(10, doorType)
		w.Spawn(11, doorType)
		return w
	}
	server, client := load(), load()
	enc := snapshot.NewEncoder(reg)
	enc.Base().Init(server, nil)
	dec, _ := snapshot.NewDecoder(reg)
	dec.Base().Init(client, nil)

	// Server: door 11 opens; both doors are in the client's PVS.
	d, _ := server.Entity(11)
	d.(*door).open = true
	var pvs snapshot.PVS
	pvs.Add(10)
	pvs.Add(11)
	w := bitmsg.NewWriter(make([]byte, 1400))
	h, _ := enc.Build(w, &snapshot.Input{Frame: 60, PVS: &pvs, World: server})
	// 126 header + 128 mask + 32 chunk + door 11 (more, skip 1: 5, spawn 0, 1 1) + 3 end bits
	fmt.Printf("snapshot %d: %d bits\n", h.Seq, w.Len())

	// Client: decode, load the states into its entities, acknowledge.
	var s snapshot.Snapshot
	dec.Decode(bitmsg.NewReader(w.Bytes(), w.Len()), &s)
	codec := snapshot.NewStateCodec()
	for _, es := range s.Entities {
		e, typ := client.Entity(es.Num)
		if e == nil || typ != es.Type || es.Spawn {
			e, _ = client.Spawn(es.Num, es.Type)
		}
		codec.Load(e, es.State, es.Bits)
		fmt.Printf("entity %d changed=%v open=%v\n", es.Num, es.Changed, e.(*door).open)
	}

	// Server gets the ack, applies, queues the reliable "apply" (package
	// proto carries it); the client applies it when it arrives, before any
	// later snapshot.
	msg, ok := enc.Ack(s.Header.Seq)
	dec.Apply(msg)
	fmt.Println(ok, enc.Base().Hash() == dec.Base().Hash())
	// Output:
	// snapshot 1: 299 bits
	// entity 10 changed=false open=false
	// entity 11 changed=true open=true
	// true true
}
