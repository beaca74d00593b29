// tables.go: the Quake 3 field tables and baselines of a recording, and the DOOM III initial
// common base, built once per scenario.

package bench

import (
	"fmt"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// Tables builds the Quake 3 field tables and baselines, and the DOOM III initial base, for rec.
func Tables(rec *Recording) (*Q3Tables, *snapshot.CommonBase, error) {
	w := rec.Load
	reg := w.Registry()
	layouts := map[game.TypeID]*Layout{}
	for t := game.TypeID(1); t <= snapshot.MaxTypeID(reg); t++ {
		e, err := reg.New(t)
		if err != nil {
			return nil, nil, err
		}
		l, err := ProbeLayout(e)
		if err != nil {
			return nil, nil, fmt.Errorf("type %d: %w", t, err)
		}
		layouts[t] = &l
	}
	u, err := NewUnion(layouts, snapshot.TypeBits(reg))
	if err != nil {
		return nil, nil, err
	}
	t := &Q3Tables{U: u, Baseline: make([]UnionState, game.MaxEntities)}
	var sts []game.Snapshotter
	for _, s := range states(w, 0, sts) {
		l, err := ProbeLayout(s)
		if err != nil {
			return nil, nil, err
		}
		t.PS = append(t.PS, &l)
	}
	codec := snapshot.NewStateCodec()
	for n, e := range w.Entities() {
		_, typ := w.Entity(n)
		st, nb, err := codec.Save(e)
		if err != nil {
			return nil, nil, err
		}
		if err := u.Fill(&t.Baseline[n], typ, st, nb); err != nil {
			return nil, nil, err
		}
	}
	base := snapshot.NewCommonBase(reg.NumStates())
	if err := base.Init(w, states(w, 0, nil)); err != nil {
		return nil, nil, err
	}
	return t, base, nil
}

// fillQ3Frame computes the union state of every present entity of w.
func fillQ3Frame(fr *Q3Frame, w *refgame.World, u *Union, codec *snapshot.StateCodec) error {
	fr.present = [game.MaxEntities]bool{}
	for n, e := range w.Entities() {
		_, typ := w.Entity(n)
		st, nb, err := codec.Save(e)
		if err != nil {
			return err
		}
		if err := u.Fill(&fr.ents[n], typ, st, nb); err != nil {
			return err
		}
		fr.present[n] = true
	}
	return nil
}

// psFields fills the field values of client c's non-PVS states.
func psFields(t *Q3Tables, w *refgame.World, c int, codec *snapshot.StateCodec, dst [][]uint32) error {
	for id, l := range t.PS {
		st, nb, err := codec.Save(w.State(game.ClientNum(c), game.StateID(id)))
		if err != nil {
			return err
		}
		if err := l.Split(st, nb, dst[id]); err != nil {
			return err
		}
	}
	return nil
}
