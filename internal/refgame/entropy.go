package refgame

import (
	_ "embed"
	"sync"

	"github.com/snapwire/snapwire/internal/netchan"
)

// entropyModel is the arena's entropy model, serialised (netchan.EntropyModel.MarshalBinary):
// trained on the arena's own channel bodies (snapshots and reliable "apply" messages) recorded
// on other map seeds than the benchmark's; `go test ./internal/bench -run TestEntropyModel
// -update` regenerates it.
//
//go:embed entropy_model.bin
var entropyModel []byte

// EntropyModel returns the arena's prior for the message channel's optional adaptive entropy
// stage (netchan.Config.Entropy; snapwire's, not the paper's). Server and client must both use
// it. It is built once and shared read-only.
func EntropyModel() *netchan.EntropyModel { return entropyModelOnce() }

var entropyModelOnce = sync.OnceValue(func() *netchan.EntropyModel {
	m, err := netchan.NewEntropyModel(entropyModel)
	if err != nil {
		// entropy_model.bin is generated and checked by TestEntropyModelLoads.
		panic("refgame: entropy_model.bin: " + err.Error())
	}
	return m
})
