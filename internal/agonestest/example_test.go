package agonestest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/snapwire/snapwire/agones"
	"github.com/snapwire/snapwire/internal/agonestest"
)

// The fake sidecar in a test: it records the calls it answers, can be
// made to fail (503) to check that a client retries through an outage,
// and can allocate the GameServer as the Agones allocator would.
func Example() {
	f := agonestest.New()
	defer f.Close()
	c := agones.New(f.URL)
	c.Backoff = time.Millisecond
	c.OnRetry = func(path string, err error) {
		fmt.Println("retry", path, "after", err)
		f.SetFailing(false) // the sidecar comes back
	}
	ctx := context.Background()

	f.SetFailing(true)
	err := c.Ready(ctx)
	fmt.Println("ready:", err, "failed calls:", f.Failed())

	f.Allocate(map[string]string{"mode": "duel"})
	gs, err := c.GameServer(ctx)
	fmt.Println(gs.Status.State, gs.ObjectMeta.Labels["mode"], err)
	fmt.Println(f.Calls())
	// Output:
	// retry /ready after agones: sidecar answered 503 Service Unavailable to POST /ready
	// ready: <nil> failed calls: 1
	// Allocated duel <nil>
	// [POST /ready GET /gameserver]
}
