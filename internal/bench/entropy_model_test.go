package bench

import (
	"os"
	"testing"

	"github.com/snapwire/snapwire/internal/entropy"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/refgame"
)

// entropyModelFile is where -update writes the arena's entropy model.
const entropyModelFile = "../refgame/entropy_model.bin"

// codedBytes is the size of every body range coded with m (the entropy stage alone, without
// the channel's choice between stages).
func codedBytes(t *testing.T, m *entropy.Model, all [][][]byte) int {
	n := 0
	for _, bodies := range all {
		for _, b := range bodies {
			ch := netchan.New(netchan.Config{MTU: 65507, Entropy: m}, 1)
			size := 0
			if err := ch.Send(0, 1, b, func(p []byte) { size = len(p) }); err != nil {
				t.Fatal(err)
			}
			n += size
		}
	}
	return n
}

// TestEntropyModel checks that the arena's entropy model (snapwire's adaptive entropy stage,
// not the paper's; the arena's channels may take it as netchan.Config.Entropy) still fits our
// channel bodies: the training recordings' packets with it are within 1% of the packets with a
// model trained on them now. With -update it rewrites the model (internal/refgame/
// entropy_model.bin) from these bodies.
func TestEntropyModel(t *testing.T) {
	if testing.Short() && !*update {
		t.Skip("records every scenario")
	}
	all, err := trainingBodies()
	if err != nil {
		t.Fatal(err)
	}
	var flat [][]byte
	for _, bodies := range all {
		flat = append(flat, bodies...)
	}
	fresh := entropy.TrainModel(flat)
	if *update {
		b, err := fresh.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(entropyModelFile, b, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", entropyModelFile)
		return
	}
	have, best := codedBytes(t, refgame.EntropyModel(), all), codedBytes(t, fresh, all)
	t.Logf("arena model: %d bytes of packets, a fresh one %d", have, best)
	if float64(have) > float64(best)*1.01 {
		t.Fatalf("the arena's entropy model codes our bodies in %d bytes, a model built now in %d: run go test ./internal/bench -run TestEntropyModel -update", have, best)
	}
}
