package snapshot

import (
	"bytes"
	"errors"
	"sync"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// Snapshots of a frame built by goroutines through views of one prepared FrameCache
// (ShareFrom) are bit for bit those a single goroutine builds through the cache itself: 8
// clients that acknowledge at different ages and see different parts of the world, 60
// frames, two workers. Run with -race, it also shows the views share the cache read-only.
func TestParallelBuildMatchesSerial(t *testing.T) {
	const clients, workers, frames = 8, 2, 60
	s := newScene256(t)
	pvs := make([]PVS, clients)
	var union PVS
	for c := range clients {
		for n := range s.pvs.All() {
			if int(n)/16%(c+2) != 0 { // each client sees its own part of the world (entities 16 apart)
				pvs[c].Add(n)
				union.Add(n)
			}
		}
	}
	newEncs := func() []*Encoder {
		encs := make([]*Encoder, clients)
		for c := range encs {
			encs[c] = NewEncoder(s.enc.reg)
			encs[c].Base().CopyFrom(s.enc.Base())
		}
		return encs
	}
	serial, parallel := newEncs(), newEncs()
	var serialCache, sharedCache FrameCache
	views := make([]FrameCache, workers)
	out := make([][]byte, clients)
	for f := range frames {
		s.frame++
		for i := 0; i < len(s.ents); i += 4 {
			s.ents[(i+f)%len(s.ents)].X++
		}
		// Serial: one cache, Build after Build (the memo shares deltas between clients).
		want := make([][]byte, clients)
		for c, e := range serial {
			in := s.in
			in.Frame, in.PVS, in.Cache = s.frame, &pvs[c], &serialCache
			want[c] = build(t, e, &in)
			if lag, seq := Seq(1+c%3), Seq(f+1); seq > lag { // the frame's snapshot is sequence f+1
				e.Ack(seq - lag)
			}
		}
		// Parallel: the frame prepared once, then the clients split between the workers.
		if err := sharedCache.Prepare(s.frame, s.world, s.enc.reg, &union); err != nil {
			t.Fatal(err)
		}
		if err := sharedCache.PrepareStates(s.frame, s.states); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, workers)
		for wk := range workers {
			views[wk].ShareFrom(&sharedCache)
			wg.Add(1)
			go func() {
				defer wg.Done()
				buf := make([]byte, 1<<16)
				for c := wk; c < clients; c += workers {
					in := s.in
					in.Frame, in.PVS, in.Cache = s.frame, &pvs[c], &views[wk]
					w := bitmsg.NewWriter(buf)
					if _, err := parallel[c].Build(w, &in); err != nil {
						errs[wk] = err
						return
					}
					out[c] = bytes.Clone(w.Bytes())
				}
			}()
		}
		wg.Wait()
		for wk, err := range errs {
			if err != nil {
				t.Fatalf("frame %d worker %d: %v", f, wk, err)
			}
		}
		for c, e := range parallel {
			if !bytes.Equal(out[c], want[c]) {
				t.Fatalf("frame %d client %d: parallel snapshot differs from the serial one", f, c)
			}
			if lag, seq := Seq(1+c%3), Seq(f+1); seq > lag { // the frame's snapshot is sequence f+1
				e.Ack(seq - lag)
			}
		}
	}
	if serialCache.memoHits == 0 {
		t.Fatal("the serial builds shared no delta: the comparison does not cover the memo")
	}
	// Each view shares deltas between its own clients (its memo and runs).
	for wk := range views {
		if views[wk].memoHits == 0 {
			t.Errorf("view %d shared no delta between its clients", wk)
		}
	}
	t.Logf("deltas shared: serial %d (%d in runs), views %d and %d (%d and %d in runs)", serialCache.memoHits,
		serialCache.runHits, views[0].memoHits, views[1].memoHits, views[0].runHits, views[1].runHits)
}

// A view refuses what its cache did not prepare: an entity outside the prepared PVS, a
// state not prepared, another frame; and Prepare itself.
func TestFrameCacheViewRefuses(t *testing.T) {
	s := newScene256(t)
	var some PVS
	n := 0
	for e := range s.pvs.All() {
		if n%2 == 0 {
			some.Add(e)
		}
		n++
	}
	var c, v FrameCache
	if err := c.Prepare(5, s.world, s.enc.reg, &some); err != nil {
		t.Fatal(err)
	}
	if err := c.PrepareStates(5, s.states); err != nil {
		t.Fatal(err)
	}
	try := func(frame game.Frame, pvs *PVS, states []game.Snapshotter) error {
		v.ShareFrom(&c)
		e := NewEncoder(s.enc.reg)
		in := s.in
		in.Frame, in.PVS, in.States, in.Cache = frame, pvs, states, &v
		_, err := e.Build(bitmsg.NewWriter(make([]byte, 1<<16)), &in)
		return err
	}
	if err := try(5, &some, s.states); err != nil {
		t.Fatalf("prepared input: %v", err)
	}
	if err := try(5, &s.pvs, s.states); !errors.Is(err, ErrNotPrepared) {
		t.Errorf("entity outside the prepared PVS: %v", err)
	}
	if err := try(6, &some, s.states); !errors.Is(err, ErrNotPrepared) {
		t.Errorf("another frame: %v", err)
	}
	if err := try(5, &some, newStates()); !errors.Is(err, ErrNotPrepared) {
		t.Errorf("unprepared states: %v", err)
	}
	if err := v.Prepare(5, s.world, s.enc.reg, &some); err == nil {
		t.Error("Prepare on a view accepted")
	}
}
