package netsim

import (
	"math/rand/v2"
	"time"

	"github.com/snapwire/snapwire/internal/netsimhook"
)

// The real-time proxy (internal/udpproxy) plans its packets with the link
// model of this package, reached through netsimhook.
func init() {
	netsimhook.Register(netsimhook.Funcs{NewLink: newHookLink})
}

func newHookLink(cfg, st any) netsimhook.Plan {
	l := &link{cfg: cfg.(LinkConfig)}
	s := st.(*Stats)
	return func(r *rand.Rand, now time.Duration, size int) (int, [2]time.Duration) {
		return l.plan(r, now, size, s)
	}
}
