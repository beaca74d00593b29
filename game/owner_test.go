package game

import (
	"strings"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
)

type ownedProbe struct{ owner ClientNum }

func (*ownedProbe) WriteSnapshot(*bitmsg.DeltaWriter) {}
func (*ownedProbe) ReadSnapshot(*bitmsg.DeltaReader)  {}
func (o *ownedProbe) Owner() (ClientNum, bool)        { return o.owner, true }

type unownedProbe struct{}

func (unownedProbe) WriteSnapshot(*bitmsg.DeltaWriter) {}
func (unownedProbe) ReadSnapshot(*bitmsg.DeltaReader)  {}

// A PredictOwner type registers only when its entities implement Owned
// (the client reads the owner from them); the mode is part of the hash.
func TestRegisterPredictOwner(t *testing.T) {
	r := NewRegistry()
	if _, err := r.Register(EntityType{Name: "pet", New: func() Entity { return &ownedProbe{} }, Mode: PredictOwner}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Register(EntityType{Name: "rock", New: func() Entity { return unownedProbe{} }, Mode: PredictOwner}); err == nil || !strings.Contains(err.Error(), `"rock"`) {
		t.Errorf("a PredictOwner type without Owned: %v", err)
	}
	if _, err := r.Register(EntityType{Name: "odd", New: func() Entity { return &ownedProbe{} }, Mode: PredictOwner + 1}); err == nil {
		t.Error("mode PredictOwner+1 registered")
	}
	p := NewRegistry()
	p.MustRegister(EntityType{Name: "pet", New: func() Entity { return &ownedProbe{} }, Mode: Predict})
	if p.Hash() == r.Hash() || r.Mode(1) != PredictOwner || PredictOwner.String() != "predict-owner" {
		t.Errorf("hash %x vs %x, mode %v", p.Hash(), r.Hash(), r.Mode(1))
	}
}
