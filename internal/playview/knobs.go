package playview

import (
	"time"

	"github.com/snapwire/snapwire/netsim"
)

// Action is one press of a knob key (the window maps keys to actions; see
// KnobKeys).
type Action uint8

// Actions.
const (
	NoAction       Action = iota
	LatencyUp             // round trip +20 ms (in-process link)
	LatencyDown           // round trip -20 ms
	JitterUp              // jitter +5 ms per direction
	JitterDown            // jitter -5 ms
	LossUp                // loss +1% per direction
	LossDown              // loss -1%
	ToggleInterp          // opponents predicted (DOOM III) or interpolated (Quake 3)
	ToggleGhost           // the server's position of the player
	ToggleNetGraph        // the net graph
)

// KnobKeys lists the knob keys as the window binds them, for the help line
// and the README.
const KnobKeys = "N or F3 net graph, I interpolate opponents, G ghost, [ ] latency, - = jitter, 9 0 loss, Esc quits"

// Knob ranges and steps.
const (
	MaxLatency  = time.Second
	LatencyStep = 20 * time.Millisecond
	MaxJitter   = 100 * time.Millisecond
	JitterStep  = 5 * time.Millisecond
	MaxLoss     = 0.5
	LossStep    = 0.01
)

// Knobs are the settings a developer changes while playing.
type Knobs struct {
	Latency     time.Duration // round trip of the simulated link (half each way)
	Jitter      time.Duration // ± per direction
	Loss        float64       // per direction, 0..MaxLoss
	Interpolate bool          // opponents interpolated between snapshots instead of predicted
	Ghost       bool          // draw the server's position of the player
	NetGraph    bool          // draw the net graph
}

// Apply changes the knobs by one action; it reports whether the link
// changed.
func (k *Knobs) Apply(a Action) (linkChanged bool) {
	old := k.Link()
	switch a {
	case LatencyUp:
		k.Latency = min(k.Latency+LatencyStep, MaxLatency)
	case LatencyDown:
		k.Latency = max(k.Latency-LatencyStep, 0)
	case JitterUp:
		k.Jitter = min(k.Jitter+JitterStep, MaxJitter)
	case JitterDown:
		k.Jitter = max(k.Jitter-JitterStep, 0)
	case LossUp:
		k.Loss = min(roundLoss(k.Loss+LossStep), MaxLoss)
	case LossDown:
		k.Loss = max(roundLoss(k.Loss-LossStep), 0)
	case ToggleInterp:
		k.Interpolate = !k.Interpolate
	case ToggleGhost:
		k.Ghost = !k.Ghost
	case ToggleNetGraph:
		k.NetGraph = !k.NetGraph
	}
	return k.Link() != old
}

// roundLoss keeps the loss on whole steps despite float sums.
func roundLoss(v float64) float64 { return float64(int64(v/LossStep+0.5)) * LossStep }

// Link is the simulated link's configuration for one direction.
func (k *Knobs) Link() netsim.LinkConfig {
	return netsim.LinkConfig{Latency: k.Latency / 2, Jitter: k.Jitter, Loss: k.Loss}
}
