package agones_test

import (
	"context"
	"testing"

	"github.com/snapwire/snapwire/agones"
	"github.com/snapwire/snapwire/internal/agonestest"
)

// GameServer carries the status address and the ports Agones assigned (a
// Dynamic port policy's host port), as the sidecar's JSON names them.
func TestGameServerAddressAndPorts(t *testing.T) {
	f := agonestest.New()
	defer f.Close()
	f.SetAddress("203.0.113.7", map[string]int{"default": 7777, "metrics": 9100})
	gs, err := agones.New(f.URL).GameServer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if gs.Status.Address != "203.0.113.7" || len(gs.Status.Ports) != 2 ||
		gs.Status.Ports[0].Name != "default" || gs.Status.Ports[0].Port != 7777 ||
		gs.Status.Ports[1].Name != "metrics" || gs.Status.Ports[1].Port != 9100 {
		t.Errorf("status %+v", gs.Status)
	}
}
