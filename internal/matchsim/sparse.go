package matchsim

import (
	"math"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/zrle"
)

// DOOM III network architecture, van Waveren 2006, §8 ideas, measured on
// the snapshots of a match (Options.Section8). For every snapshot a client
// receives, shadow server encoders build it again with snapshot.Input.Hold
// (each with its own common base, advanced when the real server applies
// the client's acknowledgement of that snapshot), and count the bits after
// zero-run-length compression (§4.3):
//
//   - all: nothing held (the reference the others are compared with);
//   - far/2, far/3: players and rockets farther than FarUnits from the
//     client's player written only in every second or third snapshot;
//   - carried: rockets in ballistic flight and dead players held once the
//     client's base has them in that state (its prediction carries them:
//     a rocket flies straight until it explodes, a dead player lies still
//     until it respawns; either change is written);
//   - client-side: the spinning props never sent (decoration a client can
//     spin itself) and no explosion events (the effect follows from the
//     rocket's own state).
//
// The match itself is unchanged: the clients get the real snapshots. The
// prediction error an entity updated every second snapshot costs is
// measured separately, on far opponents (FarErrorMean) of a match at half
// the snapshot rate (Options.SnapshotRate).

// FarUnits is the distance beyond which an entity counts as far (§8:
// "entities that are in the PVS but are very far away").
const FarUnits = 512

// Section8Stats are the bits of the shadow encodings and the far-opponent
// prediction error of a run.
type Section8Stats struct {
	Snapshots int64 `json:"snapshots"`
	// Bits after zero-run-length compression, summed over the snapshots.
	BitsAll        uint64 `json:"bits_all"`
	BitsFar2       uint64 `json:"bits_far2"`
	BitsFar3       uint64 `json:"bits_far3"`
	BitsCarried    uint64 `json:"bits_carried"`
	BitsClientSide uint64 `json:"bits_client_side"`
	// FarErrorMean: the prediction error of opponents farther than FarUnits
	// from the viewer, world units (after the warm-up).
	FarErrorMean float64 `json:"far_error_mean"`
	FarSamples   int64   `json:"far_samples"`

	farSum float64
}

const (
	varAll = iota
	varFar2
	varFar3
	varCarried
	varClientSide
	numVariants
)

// shadow is one client's shadow encoder of one variant.
type shadow struct {
	enc *snapshot.Encoder
	seq map[snapshot.Seq]snapshot.Seq // real snapshot -> shadow snapshot
}

// sparse holds the shadow encoders of every client.
type sparse struct {
	reg     *game.Registry
	byBot   map[*bot]*[numVariants]shadow
	w       bitmsg.Writer
	buf     []byte
	zbuf    []byte
	states  []game.Snapshotter
	codec   *snapshot.StateCodec
	rocket  refgame.Rocket
	player  refgame.Player
	stats   *Section8Stats
	harness *harness
}

func newSparse(h *harness) *sparse {
	return &sparse{reg: h.sg.Registry(), byBot: map[*bot]*[numVariants]shadow{}, buf: make([]byte, 1<<16), zbuf: make([]byte, 1<<17),
		states: make([]game.Snapshotter, h.sg.Registry().NumStates()), codec: snapshot.NewStateCodec(), stats: &Section8Stats{}, harness: h}
}

// snapshot builds s, just received by b, with every variant.
func (sp *sparse) snapshot(b *bot, s *snapshot.Snapshot) {
	if !sp.harness.warm {
		return
	}
	shs := sp.byBot[b]
	if shs == nil {
		shs = new([numVariants]shadow)
		for i := range shs {
			shs[i] = shadow{enc: snapshot.NewEncoder(sp.reg), seq: map[snapshot.Seq]snapshot.Seq{}}
			if !clienthook.CopyBase(b.c, shs[i].enc.Base()) {
				return
			}
		}
		sp.byBot[b] = shs
	}
	me := b.c.ClientNum()
	for i := range sp.states {
		sp.states[i] = b.w.State(me, game.StateID(i))
	}
	var bits [numVariants]uint64
	for v := range shs {
		sh := &shs[v]
		in := snapshot.Input{Frame: s.Header.Frame, Time: s.Header.Time, Duplicated: s.Header.Duplicated, Lead: s.Header.Lead,
			PVS: &s.PVS, World: b.w, States: sp.states, Cmds: s.Cmds, Events: s.Events}
		next := sh.enc.NextSeq()
		in.Hold = sp.hold(v, b, sh.enc.Base(), next)
		if v == varClientSide {
			in.Events = nil
		}
		sp.w.Reset(sp.buf)
		if _, err := sh.enc.Build(&sp.w, &in); err != nil || sp.w.Err() != nil {
			return // the snapshot is left out of every variant
		}
		z, err := zrle.Compress(sp.zbuf, sp.w.Bytes(), sp.w.Len(), zrle.DefaultWordBits)
		if err != nil {
			return
		}
		bits[v] = uint64(z)
		sh.seq[s.Header.Seq] = next
	}
	st := sp.stats
	st.Snapshots++
	st.BitsAll += bits[varAll]
	st.BitsFar2 += bits[varFar2]
	st.BitsFar3 += bits[varFar3]
	st.BitsCarried += bits[varCarried]
	st.BitsClientSide += bits[varClientSide]
}

// apply advances b's shadow bases when the server applies its
// acknowledgement of real snapshot seq.
func (sp *sparse) apply(b *bot, seq snapshot.Seq) {
	shs := sp.byBot[b]
	if shs == nil {
		return
	}
	for v := range shs {
		sh := &shs[v]
		if s, ok := sh.seq[seq]; ok {
			sh.enc.Ack(s)
			for k := range sh.seq {
				if !k.Newer(seq) {
					delete(sh.seq, k)
				}
			}
		}
	}
}

// hold returns variant v's Input.Hold for client b's snapshot numbered seq.
func (sp *sparse) hold(v int, b *bot, base *snapshot.CommonBase, seq snapshot.Seq) func(game.EntityNum) bool {
	w := b.w
	m := w.Map
	me, _ := w.PlayerEntity(b.c.ClientNum())
	vx, vy := w.Players[me].X, w.Players[me].Y
	far := func(n game.EntityNum) bool {
		e, _ := w.Entity(n)
		p, ok := e.(interface{ Position() (x, y, z float32) })
		if !ok || n == me {
			return false
		}
		x, y, _ := p.Position()
		return math.Hypot(float64(x-vx), float64(y-vy)) > FarUnits
	}
	switch v {
	case varFar2, varFar3:
		k := snapshot.Seq(2)
		if v == varFar3 {
			k = 3
		}
		return func(n game.EntityNum) bool { return far(n) && (seq+snapshot.Seq(n))%k != 0 }
	case varCarried:
		return func(n game.EntityNum) bool {
			_, st, nb := base.Entity(n)
			switch {
			case int(n) >= m.FirstRocket && int(n) < m.FirstDoor:
				k := &w.Rockets[int(n)-m.FirstRocket]
				if k.Exploded != 0 || sp.codec.Load(&sp.rocket, st, nb) != nil {
					return false
				}
				return sp.rocket.Exploded == 0 && sp.rocket.Expire == k.Expire && sp.rocket.VX == k.VX && sp.rocket.VY == k.VY
			case int(n) < len(w.Players):
				p := &w.Players[n]
				if p.Alive() || sp.codec.Load(&sp.player, st, nb) != nil {
					return false
				}
				return !sp.player.Alive() && sp.player.Respawn == p.Respawn
			}
			return false
		}
	case varClientSide:
		return func(n game.EntityNum) bool { return int(n) >= m.FirstProp && int(n) < m.NumEntities }
	}
	return nil
}

// farError adds the prediction error d of opponent n shown by b at frame
// f when n is farther than FarUnits from b's player on the server.
func (sp *sparse) farError(b *bot, n game.EntityNum, d float64) {
	w := sp.harness.sg
	me, ok := w.PlayerEntity(b.c.ClientNum())
	if !ok || b.c.State() != client.Connected || int(n) >= len(w.Players) || n == me {
		return
	}
	p, q := &w.Players[me], &w.Players[n]
	if math.Hypot(float64(p.X-q.X), float64(p.Y-q.Y)) > FarUnits {
		sp.stats.farSum += d
		sp.stats.FarSamples++
	}
}

func (s *Section8Stats) finish() {
	if s.FarSamples > 0 {
		s.FarErrorMean = round(s.farSum/float64(s.FarSamples), 3)
	}
}
