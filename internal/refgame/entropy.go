package refgame

import (
	_ "embed"
	"sync"

	"github.com/snapwire/snapwire/internal/entropy"
)

// entropyModel is the arena's entropy model, serialised (entropy.Model.MarshalBinary):
// trained on the arena's own channel bodies (snapshots and reliable "apply" messages) recorded
// on other map seeds than the benchmark's; `go test ./internal/bench -run TestEntropyModel
// -update` regenerates it.
//
//go:embed entropy_model.bin
var entropyModel []byte

// EntropyModel returns the arena's prior for the message channel's optional adaptive entropy
// stage (netchan.Config.Entropy; snapwire's, not the paper's). Server and client must both use
// it. It is built once and shared read-only.
func EntropyModel() *entropy.Model { return entropyModelOnce() }

var entropyModelOnce = sync.OnceValue(func() *entropy.Model {
	m, err := entropy.NewModel(entropyModel)
	if err != nil {
		// entropy_model.bin is generated and checked by TestEntropyModelLoads.
		panic("refgame: entropy_model.bin: " + err.Error())
	}
	return m
})
