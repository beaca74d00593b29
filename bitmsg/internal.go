package bitmsg

// What only snapshot encoding uses (internal/bitlayout): layout recording
// and replay, whether a delta changed anything, keeping written bits. Not a
// game's business, so unexported here and handed over in init.

import "github.com/snapwire/snapwire/internal/bitlayout"

func init() {
	bitlayout.Install(&bitlayout.Funcs[Writer, DeltaWriter, DeltaReader]{
		WriteDelta:    (*Writer).writeDelta,
		AppendSince:   (*Writer).appendSince,
		WriteBits64:   (*Writer).writeBits64,
		RecordLayout:  (*DeltaWriter).recordLayout,
		WriterChanged: (*DeltaWriter).stateChanged,
		ReaderChanged: (*DeltaReader).stateChanged,
	})
}
