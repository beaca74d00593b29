package agones_test

import (
	"context"
	"fmt"

	"github.com/snapwire/snapwire/agones"
	"github.com/snapwire/snapwire/internal/agonestest"
)

// A dedicated server's calls to its Agones sidecar, here snapwire's fake
// one (internal/agonestest): Ready when the match can take players, a label for
// the allocator to match, players reported as they come, Shutdown at the
// end. (An Agent makes these calls on its own beside the game loop.)
func Example() {
	sidecar := agonestest.New() // in a pod: agones.FromEnv()
	defer sidecar.Close()
	c := agones.New(sidecar.URL)
	ctx := context.Background()

	c.Ready(ctx)
	c.SetLabel(ctx, "map", "arena3x3")
	c.SetPlayerCapacity(ctx, 16)
	c.PlayerConnect(ctx, "ranger")
	gs, err := c.GameServer(ctx)
	fmt.Println(gs.Status.State, gs.ObjectMeta.Labels, err)
	c.Shutdown(ctx)
	for _, call := range sidecar.Calls() {
		fmt.Println(call)
	}
	// Output:
	// Ready map[agones.dev/sdk-map:arena3x3] <nil>
	// POST /ready
	// PUT /metadata/label {"key":"map","value":"arena3x3"}
	// PUT /alpha/player/capacity {"count":"16"}
	// POST /alpha/player/connect {"playerID":"ranger"}
	// GET /gameserver
	// POST /shutdown
}
