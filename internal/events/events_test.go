package events

import (
	"bytes"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// TestEventWriteRead collects events in a Buffer, writes them with exact
// bytes, reads them back, and rejects every truncated prefix.
func TestEventWriteRead(t *testing.T) {
	pw := bitmsg.NewWriter(make([]byte, 8))
	pw.WriteBits(0x5, 3)
	pw.WriteBits(0xab, 8)
	var sink Buffer
	sink.Frame = 1234
	sink.ServerSendEvent(7, 2, pw, true)
	sink.SendUnreliableEvent(8, 3, nil)
	big := bitmsg.NewWriter(make([]byte, game.MaxEventBytes+8))
	for range game.MaxEventBits + 1 {
		big.WriteBool(true)
	}
	sink.SendUnreliableEvent(9, 4, big)
	if sink.Err() == nil {
		t.Fatal("oversized payload accepted")
	}
	evs := sink.Events()
	if len(evs) != 2 || !evs[0].Reliable || !evs[0].Save || evs[1].Reliable || evs[0].Frame != 1234 || evs[0].Bits != 11 {
		t.Fatalf("events %+v", evs)
	}
	w := bitmsg.NewWriter(make([]byte, 64))
	for i := range evs {
		if err := Write(w, &evs[i]); err != nil {
			t.Fatal(err)
		}
	}
	// entity 7 (12) | id 2 (8) | frame 1234 (32) | len 11 (12) | payload 0x55d (11)
	if w.Len() != WireBits(11)+WireBits(0) || WireBits(0) != 64 {
		t.Fatalf("wire bits %d", w.Len())
	}
	want := []byte{0x07, 0x20, 0x20, 0x4d, 0x00, 0x00, 0xb0, 0x00, 0x5d, 0x45}
	if !bytes.Equal(w.Bytes()[:len(want)], want) {
		t.Fatalf("bytes %x want %x", w.Bytes()[:len(want)], want)
	}
	r := bitmsg.NewReader(w.Bytes(), w.Len())
	buf := make([]byte, game.MaxEventBytes)
	for i := range evs {
		var e game.Event
		if err := Read(r, &e, buf); err != nil {
			t.Fatal(err)
		}
		if e.Entity != evs[i].Entity || e.ID != evs[i].ID || e.Frame != evs[i].Frame || e.Bits != evs[i].Bits || !bytes.Equal(e.Data, evs[i].Data) {
			t.Fatalf("event %d: %+v want %+v", i, e, evs[i])
		}
	}
	first := WireBits(11)
	for n := 0; n < first; n++ {
		var e game.Event
		if err := Read(bitmsg.NewReader(w.Bytes(), n), &e, buf); err == nil {
			t.Fatalf("prefix %d parsed", n)
		}
	}
	sink.Reset()
	if len(sink.Events()) != 0 || sink.Err() != nil {
		t.Fatal("Reset")
	}
}
