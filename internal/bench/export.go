// export.go: a recording written out for the peer libraries' harness (peers/peers.mjs).
//
// The file is JSON lines. The first line is the header:
//
//	{"format":"snapwire-peers/1", "scenario":"duel", "clients":2, "skip":20, "frame_rate":60,
//	 "types":[{"id":1, "name":"door", "widths":[2,32]}, ...],
//	 "states":[{"name":"score", "widths":[7,11,...], "shared":true}, ...]}
//
// types lists every entity type with the width in bits of each field, in write order (the
// Layout that ProbeLayout finds); states lists the non-PVS states likewise, shared when every
// client has the same one (the scoreboard) and per client otherwise (a player's statistics).
// Then one line per snapshot tick:
//
//	{"frame":123,
//	 "ents":[num, type, v0, v1, ..., num, type, v0, ...],
//	 "pvs":[[num, ...], ...],
//	 "states":[[[v0, v1, ...]], [[v0, ...], [v0, ...]], ...]}
//
// ents holds every present entity in ascending order: its number, its type id, then one value
// per field of its type; pvs holds per client the present entities of its PVS, ascending;
// states holds per state one value list if it is shared, else one per client. A value is the
// field as the snapshot codec holds it: its bits as an unsigned integer of the field's width
// (a float field's IEEE bits, a ranged integer's offset from its minimum), so an encoder given
// these values sends exactly the information our schemes send.

package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// PeerFormat names the export's format version.
const PeerFormat = "snapwire-peers/1"

type peerHeader struct {
	Format    string      `json:"format"`
	Scenario  string      `json:"scenario"`
	Clients   int         `json:"clients"`
	Skip      int         `json:"skip"`
	FrameRate int         `json:"frame_rate"`
	Types     []peerType  `json:"types"`
	States    []peerState `json:"states"`
}

type peerType struct {
	ID     game.TypeID `json:"id"`
	Name   string      `json:"name"`
	Widths []int       `json:"widths"`
}

type peerState struct {
	Name   string `json:"name"`
	Widths []int  `json:"widths"`
	Shared bool   `json:"shared"`
}

func widthsOf(l *Layout) []int {
	ws := make([]int, len(l.Widths))
	for i, w := range l.Widths {
		ws[i] = int(w)
	}
	return ws
}

// shortName is a registry name without its package prefix ("arena.player" -> "player").
func shortName(s string) string { return s[strings.LastIndexByte(s, '.')+1:] }

// ExportPeers writes rec in the peers' format to w: t supplies the field layouts, skip is the
// number of leading ticks the peers leave out of their statistics.
func ExportPeers(w io.Writer, rec *Recording, t *Q3Tables, skip int) error {
	h, err := newPeerHeader(rec, t, skip)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(w, 1<<16)
	hb, err := json.Marshal(h)
	if err != nil {
		return err
	}
	bw.Write(hb)
	bw.WriteByte('\n')

	x := newPeerTicks(t)
	var line []byte
	for ti := range rec.Ticks {
		tk := &rec.Ticks[ti]
		line = append(line[:0], `{"frame":`...)
		line = strconv.AppendInt(line, int64(tk.Frame), 10)
		line = append(line, `,"ents":[`...)
		if line, err = x.appendEnts(line, tk); err != nil {
			return err
		}
		line = append(line, `],"pvs":[`...)
		line = appendPeerPVS(line, tk, rec.Clients)
		line = append(line, `],"states":[`...)
		if line, err = x.appendStates(line, tk, h.States, rec.Clients); err != nil {
			return err
		}
		line = append(line, "]}\n"...)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// newPeerHeader returns the export's header line for rec: every entity type's and non-PVS
// state's field widths from t, each state shared when every client of the first tick is
// given the same one.
func newPeerHeader(rec *Recording, t *Q3Tables, skip int) (peerHeader, error) {
	reg := rec.Load.Registry()
	h := peerHeader{Format: PeerFormat, Scenario: rec.Scenario.Name, Clients: rec.Clients, Skip: skip, FrameRate: FrameRate}
	for id := game.TypeID(1); id <= reg.MaxID(); id++ {
		l := t.U.Types[id]
		et, ok := reg.Type(id)
		if l == nil || !ok {
			return h, fmt.Errorf("bench: export: no layout for type %d", id)
		}
		h.Types = append(h.Types, peerType{ID: id, Name: shortName(et.Name), Widths: widthsOf(l)})
	}
	w0 := rec.Ticks[0].World
	for id, l := range t.PS {
		st, _ := reg.State(game.StateID(id))
		// A state is shared when every client is given the same one.
		shared := rec.Clients > 1
		for c := 1; c < rec.Clients && shared; c++ {
			shared = w0.State(game.ClientNum(c), game.StateID(id)) == w0.State(0, game.StateID(id))
		}
		h.States = append(h.States, peerState{Name: shortName(st.Name), Widths: widthsOf(l), Shared: shared})
	}
	return h, nil
}

// peerTicks turns a tick's states into the export's field values: t's layouts split the
// states the codec saves into vals (an entity's) and psVals (each non-PVS state's).
type peerTicks struct {
	t      *Q3Tables
	codec  *snapshot.StateCodec
	vals   []uint32
	psVals [][]uint32
}

func newPeerTicks(t *Q3Tables) *peerTicks {
	x := &peerTicks{t: t, codec: snapshot.NewStateCodec(), vals: make([]uint32, MaxSlots), psVals: make([][]uint32, len(t.PS))}
	for id, l := range t.PS {
		x.psVals[id] = make([]uint32, l.Fields())
	}
	return x
}

// appendEnts appends the "ents" list of tk: every present entity's number, type and field
// values.
func (x *peerTicks) appendEnts(line []byte, tk *Tick) ([]byte, error) {
	first := true
	for n, e := range tk.World.Entities() {
		_, typ := tk.World.Entity(n)
		st, nb, err := x.codec.Save(e)
		if err != nil {
			return line, err
		}
		l := x.t.U.Types[typ]
		if l == nil {
			return line, fmt.Errorf("bench: export: entity %d has type %d without a layout", n, typ)
		}
		if err := l.Split(st, nb, x.vals); err != nil {
			return line, err
		}
		if !first {
			line = append(line, ',')
		}
		first = false
		line = strconv.AppendUint(line, uint64(n), 10)
		line = append(line, ',')
		line = strconv.AppendUint(line, uint64(typ), 10)
		for _, v := range x.vals[:l.Fields()] {
			line = append(line, ',')
			line = strconv.AppendUint(line, uint64(v), 10)
		}
	}
	return line, nil
}

// appendPeerPVS appends the "pvs" lists of tk: per client, the present entities of its PVS.
func appendPeerPVS(line []byte, tk *Tick, clients int) []byte {
	for c := range clients {
		if c > 0 {
			line = append(line, ',')
		}
		line = append(line, '[')
		first := true
		for n := range tk.PVS[c].All() {
			if e, _ := tk.World.Entity(n); e == nil {
				continue
			}
			if !first {
				line = append(line, ',')
			}
			first = false
			line = strconv.AppendUint(line, uint64(n), 10)
		}
		line = append(line, ']')
	}
	return line
}

// appendStates appends the "states" lists of tk: per non-PVS state, client 0's values if
// states says it is shared, else each client's.
func (x *peerTicks) appendStates(line []byte, tk *Tick, states []peerState, clients int) ([]byte, error) {
	for id, l := range x.t.PS {
		if id > 0 {
			line = append(line, ',')
		}
		line = append(line, '[')
		n := clients
		if states[id].Shared {
			n = 1
		}
		for c := range n {
			st, nb, err := x.codec.Save(tk.World.State(game.ClientNum(c), game.StateID(id)))
			if err != nil {
				return line, err
			}
			sv := x.psVals[id]
			if err := l.Split(st, nb, sv); err != nil {
				return line, err
			}
			if c > 0 {
				line = append(line, ',')
			}
			line = append(line, '[')
			for i, v := range sv {
				if i > 0 {
					line = append(line, ',')
				}
				line = strconv.AppendUint(line, uint64(v), 10)
			}
			line = append(line, ']')
		}
		line = append(line, ']')
	}
	return line, nil
}
