package client_test

import (
	"fmt"
	"math/bits"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/bitlayout"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// bitops starts an entity's delta and takes its new state, as the snapshot decoder does
// (bitmsg hands that plumbing to internal/bitlayout).
var bitops = bitlayout.Get[bitmsg.Writer, bitmsg.DeltaWriter, bitmsg.DeltaReader, bitmsg.Reader]()

// botStill never moves: its command is always the zero command.
const botStill botMode = 100

// entityRecord is one entity record of a snapshot as it is on the wire.
type entityRecord struct {
	num          game.EntityNum
	skip         int // PVS members passed over
	spawn        bool
	header, body int // bits: next code + spawn (+ type); the delta
	state        []byte
	bits         int
}

// parseRecords walks a snapshot bit stream by the layout of
// docs/PROTOCOL.md (an implementation independent of package snapshot's
// decoder) and returns the PVS and every entity record with its exact
// size in bits. base is the base the snapshot is encoded against.
func parseRecords(reg *game.Registry, data []byte, base *snapshot.CommonBase) (snapshot.PVS, []entityRecord, error) {
	r := bitmsg.NewReader(data, len(data)*8)
	r.ReadBits(32) // seq
	if r.ReadBits(6) == 63 {
		r.ReadBits(32) // base seq
	}
	r.ReadBits(32) // frame
	r.ReadBits(32) // time
	r.ReadBits(8)  // duplicated
	r.ReadBits(16) // lead
	var pvs snapshot.PVS
	if err := pvs.ReadDelta(r, base.PVS()); err != nil {
		return pvs, nil, err
	}
	var members []game.EntityNum
	for n := range pvs.All() {
		members = append(members, n)
	}
	var recs []entityRecord
	next := 0
	dr := new(bitmsg.DeltaReader)
	for {
		// Next code: "0" = skip 0; "1" and ExpGolomb(v): v = 0 ends the list,
		// else skip v. ExpGolomb: n zeros, a one, n bits: v = 1<<n + bits - 1.
		start := r.BitsLeft()
		skip := 0
		if r.ReadBool() {
			n := 0
			for !r.ReadBool() && n <= 12 {
				n++
			}
			if n == 0 {
				break
			}
			skip = 1<<n + int(r.ReadBits(n)) - 1
		}
		if r.Err() != nil {
			break
		}
		next += skip
		if next >= len(members) {
			return pvs, nil, fmt.Errorf("skip past the PVS")
		}
		rec := entityRecord{num: members[next], skip: skip, spawn: r.ReadBool()}
		next++
		typ, bstate, bbits := base.Entity(rec.num)
		if rec.spawn {
			typ = game.TypeID(r.ReadBits(snapshot.TypeBits(reg)))
			bstate, bbits = nil, 0
		}
		rec.header = start - r.BitsLeft()
		e, err := reg.New(typ)
		if err != nil {
			return pvs, nil, err
		}
		st := make([]byte, game.MaxStateBytes)
		bitops.ResetReader(dr, bstate, bbits, r, st)
		e.ReadSnapshot(dr)
		if dr.Err() != nil {
			return pvs, nil, dr.Err()
		}
		rec.body = start - r.BitsLeft() - rec.header
		rec.state, rec.bits = bitops.ReaderState(dr)
		recs = append(recs, rec)
	}
	return pvs, recs, r.Err()
}

// doorFieldBits is the Door's WriteSnapshot: Open, X, Y, Period.
var doorFieldBits = []int{1, 32, 32, 16}

// fieldCost is what DOOM III §4.2 says a delta costs: a 0 bit per
// unchanged field, a 1 bit and the field per changed one; and the number
// of changed fields.
func fieldCost(widths []int, base []byte, baseBits int, state []byte) (bits, changed int) {
	a, b := bitmsg.NewReader(base, baseBits), bitmsg.NewReader(state, len(state)*8)
	for _, w := range widths {
		if a.ReadBits(w) != b.ReadBits(w) {
			bits += 1 + w
			changed++
		} else {
			bits++
		}
	}
	return bits, changed
}

// nextCodeBits is the next code's size by the layout table: 1 bit for
// skip 0, else a 1 bit and ExpGolomb(k), 2*floor(log2(k+1))+1 bits.
func nextCodeBits(k int) int {
	if k == 0 {
		return 1
	}
	return 1 + 2*(bits.Len(uint(k+1))-1) + 1
}

// Acceptance: an unchanged entity is never written; an entity
// that leaves and re-enters the PVS costs exactly its changed fields, and
// nothing when none changed. The real server and client run over netsim;
// the test counts the bits of the door's record in every snapshot the
// client received, parsing the bit stream itself.
func TestEntityCostBits(t *testing.T) {
	s := newSim(t, 61, netsim.LinkConfig{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond}, server.Config{})
	const settings = "map=one,movers=0,doors=2,drones=0,period=0"
	if err := s.srv.ChangeMap(settings); err != nil {
		t.Fatal(err)
	}
	door := game.EntityNum(testgame.FirstDoor) // X=150: in view of player 0 at X=100
	reg := testgame.NewRegistry()
	type phaseStats struct {
		records     []entityRecord
		want        []int // expected record bits
		changed     []int
		reentered   bool
		idleInPVS   int // snapshots with the door in the PVS and no record
		lastWritten int // index of the last snapshot that wrote the door
		snaps       int
	}
	var ph *phaseStats
	var prevIn bool
	var ccfg client.Config
	clienthook.Set(&ccfg, clienthook.Hooks{OnSnapshotData: func(data []byte, base *snapshot.CommonBase) {
		pvs, recs, err := parseRecords(reg, data, base)
		if err != nil {
			t.Errorf("parse: %v", err)
			return
		}
		if ph == nil {
			return
		}
		ph.snaps++
		in := pvs.Has(door)
		if in && !prevIn {
			ph.reentered = true
		}
		prevIn = in
		written := false
		for i, rec := range recs {
			if rec.num != door {
				continue
			}
			written = true
			ph.lastWritten = ph.snaps
			_, bstate, bbits := base.Entity(door)
			body, k := fieldCost(doorFieldBits, bstate, bbits, rec.state)
			// PVS members passed over: those after the previous record.
			passed := 0
			for n := range pvs.All() {
				if n < door && (i == 0 || n > recs[i-1].num) {
					passed++
				}
			}
			if rec.spawn || rec.skip != passed || rec.header != nextCodeBits(passed)+1 {
				t.Errorf("door record header: %+v, %d members passed", rec, passed)
			}
			if rec.body != body {
				t.Errorf("door delta of %d bits, want %d (%d fields changed)", rec.body, body, k)
			}
			ph.records = append(ph.records, rec)
			ph.want = append(ph.want, nextCodeBits(passed)+1+body)
			ph.changed = append(ph.changed, k)
		}
		if in && !written {
			ph.idleInPVS++
		}
	}})
	s.addClient(0, botStill, ccfg)
	s.run(3 * time.Second)
	de, _ := s.sg.Entity(door)
	d := de.(*testgame.Door)
	changes := []func(){
		func() { d.Open = !d.Open },
		func() { d.Y += 10 },
		func() { d.Period = uint16(60000 + int(s.srv.Frame())%1000) }, // never due in this test
	}
	for k := 0; k <= 3; k++ {
		ph = &phaseStats{}
		d.X = 1500 // out of view
		s.run(s.now + 500*time.Millisecond)
		if prevIn {
			t.Fatalf("k=%d: the door did not leave the PVS", k)
		}
		for _, ch := range changes[:k] {
			ch()
		}
		s.run(s.now + 500*time.Millisecond)
		d.X = 150 // back in view, X as in the base
		s.run(s.now + 2*time.Second)
		if !ph.reentered {
			t.Fatalf("k=%d: the door did not re-enter", k)
		}
		if k == 0 {
			if len(ph.records) != 0 {
				t.Errorf("k=0: an unchanged re-entering door was written %d times: %+v", len(ph.records), ph.records)
			}
		} else {
			if len(ph.records) == 0 {
				t.Fatalf("k=%d: the changed door was never written", k)
			}
			for i, rec := range ph.records {
				if got := rec.header + rec.body; got != ph.want[i] || ph.changed[i] != k {
					t.Errorf("k=%d: record %d costs %d bits (%d fields changed), want %d", k, i, got, ph.changed[i], ph.want[i])
				}
			}
			t.Logf("k=%d: the re-entering door costs %d bits (header %d + delta %d) in each of %d snapshots until acknowledged",
				k, ph.records[0].header+ph.records[0].body, ph.records[0].header, ph.records[0].body, len(ph.records))
		}
		// Once acknowledged, the door is unchanged: never written again.
		if idle := ph.snaps - ph.lastWritten; idle < 20 || ph.idleInPVS < 20 {
			t.Errorf("k=%d: door unwritten in only the last %d snapshots (%d in the PVS)", k, idle, ph.idleInPVS)
		}
	}
	checkInvariants(t, s)
}
