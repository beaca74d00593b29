package game_test

import (
	"fmt"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// Rocket is a networked entity of the example.
type Rocket struct{ X int32 }

func (r *Rocket) WriteSnapshot(w *bitmsg.DeltaWriter) { w.WriteInt(r.X, 16) }
func (r *Rocket) ReadSnapshot(rd *bitmsg.DeltaReader) { r.X = rd.ReadInt(16) }

// A server-side game spawns with Add and despawns with Remove; the server
// calls Recycle before each frame (here by hand) to return the numbers
// every client has seen leave.
func ExampleEntityTable_Add() {
	reg := game.NewRegistry()
	rocket := reg.MustRegister(game.EntityType{Name: "rocket", New: func() game.Entity { return &Rocket{} }})
	world := game.NewEntityTable(reg)

	a, e, _ := world.Add(rocket)
	e.(*Rocket).X = 100
	b, _, _ := world.Add(rocket)
	world.Recycle(1, 1) // frame 1 starts
	world.Remove(a)     // despawned during frame 1
	c, _, _ := world.Add(rocket)
	world.Recycle(2, 1) // a client's base still holds frame 1: a stays held
	d, _, _ := world.Add(rocket)
	world.Recycle(3, 2) // every client's base holds frame 2 or later
	f, _, _ := world.Add(rocket)
	fmt.Println(a, b, c, d, f, world.Len())
	// Output: 0 1 2 3 0 4
}
