package statecheck_test

import (
	"errors"
	"testing"

	"github.com/snapwire/snapwire/examples/tanks"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/statecheck"
)

// A client world equal to the server's passes the check; one field
// changed, an entity the server had not, or the frame out of the record
// each fail it, in the right way.
func TestCheck(t *testing.T) {
	srv, cl := tanks.New(), tanks.New()
	if err := srv.Load(""); err != nil {
		t.Fatal(err)
	}
	if err := cl.Load(""); err != nil {
		t.Fatal(err)
	}
	rec := statecheck.NewRecorder(4)
	rec.Record(10, srv)
	var pvs snapshot.PVS
	for n := range cl.Entities() {
		pvs.Add(n)
	}
	c := statecheck.NewClient()
	var counts statecheck.Counts
	s := c.Sample(10, cl, &pvs)
	if len(s.Entities) != 12 {
		t.Fatalf("sample of %d entities, want the 12 crates", len(s.Entities))
	}
	if err := counts.Add(s, rec.Check(s)); err != nil {
		t.Fatalf("equal worlds: %v", err)
	}

	e, _ := cl.Entity(s.Entities[3])
	e.(*tanks.Crate).HP--
	if err := counts.Add(s, rec.Check(c.Sample(10, cl, &pvs))); err == nil {
		t.Fatal("a crate's HP differs, and the check passed")
	}
	// A field that is not networked (Crate.Sparks) is not compared.
	e.(*tanks.Crate).HP++
	e.(*tanks.Crate).Sparks++
	if err := rec.Check(c.Sample(10, cl, &pvs)); err != nil {
		t.Fatalf("only Sparks differs: %v", err)
	}

	pvs.Add(100)
	if err := rec.Check(c.Sample(10, cl, &pvs)); err == nil || errors.Is(err, statecheck.ErrUnrecorded) {
		t.Fatalf("entity 100, which the server had not: %v", err)
	}
	pvs.Remove(100)

	for f := 11; f < 15; f++ { // frame 10 leaves the ring of 4
		rec.Record(game.Frame(f), srv)
	}
	if err := counts.Add(s, rec.Check(s)); err != nil || !errors.Is(rec.Check(s), statecheck.ErrUnrecorded) {
		t.Fatalf("frame 10 out of the record: %v", rec.Check(s))
	}
	want := statecheck.Counts{Checks: 2, Entities: 24, Mismatches: 1, Unchecked: 1}
	if counts != want {
		t.Fatalf("counts %+v, want %+v", counts, want)
	}
}
