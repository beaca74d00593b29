package snapshot

import (
	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/internal/bitlayout"
)

// bitops are bitmsg's operations that only snapshot encoding uses (layout
// recording and replay, whether a delta changed, keeping written bits),
// which bitmsg keeps out of its public API and hands over through
// internal/bitlayout.
var bitops = bitlayout.Get[bitmsg.Writer, bitmsg.DeltaWriter, bitmsg.DeltaReader, bitmsg.Reader]()
