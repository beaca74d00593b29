package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/report"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// peersOrSkip returns node and the peers' program directory, or skips the test: Node is an
// external program, so the peers run only in the "peers" acceptance run, and there a missing
// Node or missing pinned packages skip the test, or fail it with SNAPWIRE_REQUIRE_NODE_PEERS=1
// (set by .ci/run once npm ci succeeded).
func peersOrSkip(t *testing.T) (node, dir string) {
	t.Helper()
	acceptance.Require(t, "peers")
	dir = DefaultPeersDir()
	node, err := PeersReady(dir)
	if err != nil {
		if os.Getenv("SNAPWIRE_REQUIRE_NODE_PEERS") == "1" {
			t.Fatalf("peers required (SNAPWIRE_REQUIRE_NODE_PEERS=1): %v", err)
		}
		t.Skipf("peers not run: %v", err)
	}
	return node, dir
}

func scenarioNamed(t *testing.T, name string) Scenario {
	t.Helper()
	for _, sc := range Scenarios() {
		if sc.Name == name {
			return sc
		}
	}
	t.Fatalf("no scenario %s", name)
	return Scenario{}
}

// exportFile records a short scenario and writes its export into a temporary directory.
func exportFile(t *testing.T, name string, warmup, ticks, skip int) (*Recording, string) {
	t.Helper()
	rec, err := Record(scenarioNamed(t, name), warmup, ticks)
	if err != nil {
		t.Fatal(err)
	}
	tb, _, err := Tables(rec)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := ExportPeers(&b, rec, tb, skip); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return rec, path
}

type exportTick struct {
	Frame  game.Frame   `json:"frame"`
	Ents   []int64      `json:"ents"`
	PVS    [][]int      `json:"pvs"`
	States [][][]uint32 `json:"states"`
}

func readExport(t *testing.T, path string) (peerHeader, []exportTick) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	var h peerHeader
	var ticks []exportTick
	for i := 0; sc.Scan(); i++ {
		if i == 0 {
			if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
				t.Fatal(err)
			}
			continue
		}
		var tk exportTick
		if err := json.Unmarshal(sc.Bytes(), &tk); err != nil {
			t.Fatal(err)
		}
		ticks = append(ticks, tk)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return h, ticks
}

// The export holds exactly the recording: every present entity's fields, joined back into a
// bit-packed state by its layout, equal the codec's state of the server's entity; the PVS
// lists are the present entities of the recorded PVS; the states are the clients' own.
func TestExportPeers(t *testing.T) {
	rec, path := exportFile(t, "duel", 30, 8, 2)
	tb, _, err := Tables(rec)
	if err != nil {
		t.Fatal(err)
	}
	h, ticks := readExport(t, path)
	if h.Format != PeerFormat || h.Clients != rec.Clients || h.Skip != 2 || len(ticks) != len(rec.Ticks) || len(h.States) != len(tb.PS) {
		t.Fatalf("header %+v, %d ticks", h, len(ticks))
	}
	widths := map[game.TypeID][]int{}
	for _, ty := range h.Types {
		widths[ty.ID] = ty.Widths
	}
	codec := snapshot.NewStateCodec()
	buf := make([]byte, game.MaxStateBytes)
	for ti, tk := range ticks {
		w := rec.Ticks[ti].World
		if tk.Frame != rec.Ticks[ti].Frame {
			t.Fatalf("tick %d: frame %d, recorded %d", ti, tk.Frame, rec.Ticks[ti].Frame)
		}
		seen := 0
		for i := 0; i < len(tk.Ents); {
			n, typ := game.EntityNum(tk.Ents[i]), game.TypeID(tk.Ents[i+1])
			ws := widths[typ]
			vals := make([]uint32, len(ws))
			for k := range ws {
				vals[k] = uint32(tk.Ents[i+2+k])
			}
			i += 2 + len(ws)
			e, rt := w.Entity(n)
			if e == nil || rt != typ {
				t.Fatalf("tick %d: entity %d of type %d, recorded %d", ti, n, typ, rt)
			}
			want, nb, err := codec.Save(e)
			if err != nil {
				t.Fatal(err)
			}
			bw := bitmsg.NewWriter(buf)
			tb.U.Types[typ].Join(bw, vals)
			if bw.Len() != nb || !bytes.Equal(bw.Bytes(), want) {
				t.Fatalf("tick %d entity %d: exported fields %v do not join into the server's state", ti, n, vals)
			}
			seen++
		}
		present := 0
		for range w.Entities() {
			present++
		}
		if seen != present {
			t.Fatalf("tick %d: %d entities exported, %d present", ti, seen, present)
		}
		for c, list := range tk.PVS {
			k := 0
			for n := range rec.Ticks[ti].PVS[c].All() {
				if e, _ := w.Entity(n); e != nil {
					if k >= len(list) || list[k] != int(n) {
						t.Fatalf("tick %d client %d: PVS %v differs from the recorded", ti, c, list)
					}
					k++
				}
			}
			if k != len(list) {
				t.Fatalf("tick %d client %d: PVS %v has more than the recorded", ti, c, list)
			}
		}
		for id, st := range h.States {
			for c := range rec.Clients {
				vals := tk.States[id][0]
				if !st.Shared {
					vals = tk.States[id][c]
				}
				want, nb, err := codec.Save(w.State(game.ClientNum(c), game.StateID(id)))
				if err != nil {
					t.Fatal(err)
				}
				bw := bitmsg.NewWriter(buf)
				tb.PS[id].Join(bw, vals)
				if bw.Len() != nb || !bytes.Equal(bw.Bytes(), want) {
					t.Fatalf("tick %d state %s client %d: exported %v differ from the server's", ti, st.Name, c, vals)
				}
			}
		}
	}
	// The scoreboard is the same for every client; the statistics are each player's own.
	if !h.States[0].Shared || h.States[1].Shared {
		t.Errorf("states %+v: want the scoreboard shared and the statistics per client", h.States)
	}
}

// Both peers' decoders reproduce every client's view of every recorded tick, PVS churn
// included, and the 64-player scoreboard, wider than a Colyseus Schema's 63 fields; and their
// snapshots have bytes.
func TestPeersReproduceRecording(t *testing.T) {
	node, dir := peersOrSkip(t)
	for _, name := range []string{"duel", "churn", "64p"} {
		rec, path := exportFile(t, name, 30, 8, 2)
		out, err := runPeerProgram(context.Background(), node, dir, path, len(rec.Ticks), rec.Clients, 2)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, p := range out.Peers {
			mean := report.Mean(p.Sizes)
			if mean <= 0 || p.EncodeNS <= 0 || p.DecodeNS <= 0 || p.Version == "" {
				t.Errorf("%s %s: %.1f bytes, encode %.0f ns, decode %.0f ns, version %q", name, p.Encoder, mean, p.EncodeNS, p.DecodeNS, p.Version)
			}
			if p.Encoder == EncGeckos {
				for i, s := range p.Sizes {
					if s <= 0 {
						t.Fatalf("%s geckos: client-snapshot %d has %v bytes", name, i, s)
					}
				}
			}
			t.Logf("%s %s %s: %.1f bytes, encode %.1f µs, decode %.1f µs", name, p.Encoder, p.Version, mean, p.EncodeNS/1e3, p.DecodeNS/1e3)
		}
	}
}

// The peers' check can fail: an export whose field value does not fit its width (300 in a
// field of at most 8 bits) is encoded by each peer as what its type holds, which decodes to
// another value than the recording's, and the run fails with the difference.
func TestPeersCorruptExportFails(t *testing.T) {
	node, dir := peersOrSkip(t)
	rec, path := exportFile(t, "duel", 30, 6, 2)
	h, ticks := readExport(t, path)
	widths := map[game.TypeID][]int{}
	for _, ty := range h.Types {
		widths[ty.ID] = ty.Widths
	}
	// The first field of at most 8 bits of an entity client 0 sees, in the last tick.
	tk := &ticks[len(ticks)-1]
	visible := map[int]bool{}
	for _, n := range tk.PVS[0] {
		visible[n] = true
	}
	done := false
	for i := 0; i < len(tk.Ents) && !done; {
		ws := widths[game.TypeID(tk.Ents[i+1])]
		for k, w := range ws {
			if w <= 8 && visible[int(tk.Ents[i])] {
				tk.Ents[i+2+k] = 300
				done = true
				break
			}
		}
		i += 2 + len(ws)
	}
	if !done {
		t.Fatal("no narrow field in client 0's view")
	}
	lines, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Split(strings.TrimRight(string(lines), "\n"), "\n")
	last, err := json.Marshal(tk)
	if err != nil {
		t.Fatal(err)
	}
	all[len(all)-1] = string(last)
	if err := os.WriteFile(path, []byte(strings.Join(all, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = runPeerProgram(context.Background(), node, dir, path, len(rec.Ticks), rec.Clients, 2)
	if err == nil || !strings.Contains(err.Error(), "decoded as") || !strings.Contains(err.Error(), "recorded 300") {
		t.Fatalf("corrupted export: %v, want a decoded value differing from the recorded 300", err)
	}
}

// A run with the peers: their rows (colyseus at 0% loss only, geckos at every loss rate) and
// the report's peers table with every encoder, and the peers' paragraph in the notes.
func TestRunPeersReport(t *testing.T) {
	_, dir := peersOrSkip(t)
	o := QuickOptions()
	o.Ticks, o.Warmup = 40, 30
	o.Scenarios = []string{"duel"}
	o.PeersDir = dir
	res, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Peers.Ran || res.Peers.Versions[EncColyseus] == "" || res.Peers.Versions[EncGeckos] == "" || res.Peers.Node == "" {
		t.Fatalf("peers %+v", res.Peers)
	}
	for _, l := range o.Losses {
		c, g, q := res.Find("duel", l, EncColyseus), res.Find("duel", l, EncGeckos), res.Find("duel", l, EncQuake3)
		if (c != nil) != (l == 0) || g == nil || q == nil {
			t.Fatalf("loss %.2f: colyseus %v, geckos %v", l, c, g)
		}
		if g.BytesMean <= 0 || g.BytesP99 < g.BytesMean || g.NsPerClientSnapshot <= 0 || g.DecodeNS <= 0 || g.Ratio != g.BytesMean/q.BytesMean {
			t.Errorf("geckos at %.2f: %+v", l, *g)
		}
		// Each geckos snapshot stands alone: the same bytes at every loss rate.
		if g0 := res.Find("duel", 0, EncGeckos); g.BytesMean != g0.BytesMean || g.LossGrowth != 1 {
			t.Errorf("geckos at %.2f: %v bytes, %v at 0%%", l, g.BytesMean, g0.BytesMean)
		}
	}
	if c := res.Find("duel", 0, EncColyseus); c.BytesMean <= 0 || c.NsPerClientSnapshot <= 0 || c.PeerUpdateNS <= 0 || c.DecodeNS <= 0 {
		t.Errorf("colyseus: %+v", *c)
	}
	var md strings.Builder
	if err := res.WriteMarkdown(&md, Notes(res)); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Peer libraries on the same frames", "| duel | 0% | **colyseus** | reliable (WebSocket) |",
		"| duel | 0% | **geckos** |", "| duel | 20% | **geckos** |", "| duel | 20% | doom3+huff |", "| duel | 0% | doom3+rc |", "| duel | 0% | quake3 |",
		"@colyseus/schema " + res.Peers.Versions[EncColyseus], "**Peer libraries** (the peers table)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("BENCHMARKS.md lacks %q", want)
		}
	}
	if strings.Contains(md.String(), "| duel | 5% | **colyseus**") {
		t.Error("colyseus has a loss row")
	}
}
