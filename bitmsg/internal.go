package bitmsg

// What only snapshot encoding uses (internal/bitlayout): starting an
// entity's delta and taking its new state, layout recording and replay,
// whether a delta changed anything, keeping, replaying and rolling back
// written bits. Not a game's business (a game writes and reads its fields;
// the snapshot encoder and decoder start and finish each entity), so
// unexported here and handed over in init.

import "github.com/snapwire/snapwire/internal/bitlayout"

func init() {
	bitlayout.Install(&bitlayout.Funcs[Writer, DeltaWriter, DeltaReader, Reader]{
		WriteDelta:    (*Writer).writeDelta,
		AppendSince:   (*Writer).appendSince,
		WriteBits64:   (*Writer).writeBits64,
		RecordLayout:  (*DeltaWriter).recordLayout,
		WriterChanged: (*DeltaWriter).stateChanged,
		ReaderChanged: (*DeltaReader).stateChanged,
		ResetWriter:   (*DeltaWriter).reset,
		ResetReader:   (*DeltaReader).reset,
		WriterState:   (*DeltaWriter).state,
		ReaderState:   (*DeltaReader).state,
		WriteBitsFrom: (*Writer).writeBitsFrom,
		Truncate:      (*Writer).truncate,
	})
}
