// peers.go: the peer libraries (peers/peers.mjs, run by Node) on the same recorded frames:
// the recording is exported (export.go), the Node program encodes it with each peer's encoder
// and decodes it with the peer's own decoder, and its figures become rows.

package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Peer encoder names, as they appear in rows.
const (
	EncColyseus = "colyseus" // @colyseus/schema: delta state sync, one StateView per client holding its PVS; reliable transport, 0% loss only
	EncGeckos   = "geckos"   // @geckos.io/typed-array-buffer-schema: a full snapshot per client per tick; unreliable transport
)

// PeerPackages are the npm packages behind the peer encoders, pinned in peers/package.json.
var PeerPackages = map[string]string{EncColyseus: "@colyseus/schema", EncGeckos: "@geckos.io/typed-array-buffer-schema"}

// Bounds on the Node program: its run time and what the Go side reads of its output.
const (
	peerTimeout   = 30 * time.Minute
	peerMaxOutput = 64 << 20
	peerMaxStderr = 64 << 10
)

// PeerStatus says whether the peers ran and, when they did not, why.
type PeerStatus struct {
	Ran      bool
	Reason   string            // why they did not run
	Node     string            // node's version
	Versions map[string]string // encoder name -> package version
}

// DefaultPeersDir is the peers' Node program beside this package's source, or "" when the
// source is not where the binary was built.
func DefaultPeersDir() string {
	_, file, _, ok := runtime.Caller(0)
	if ok {
		d := filepath.Join(filepath.Dir(file), "peers")
		if _, err := os.Stat(filepath.Join(d, "peers.mjs")); err == nil {
			return d
		}
	}
	if _, err := os.Stat(filepath.Join("internal", "bench", "peers", "peers.mjs")); err == nil {
		return filepath.Join("internal", "bench", "peers")
	}
	return ""
}

// PeersReady reports whether the peers can run from dir: node on the PATH and the pinned
// packages installed (npm ci in dir); otherwise it says what is missing.
func PeersReady(dir string) (node string, err error) {
	if dir == "" {
		return "", errors.New("the peers' program (internal/bench/peers) was not found")
	}
	if _, err := os.Stat(filepath.Join(dir, "peers.mjs")); err != nil {
		return "", fmt.Errorf("no peers.mjs in %s", dir)
	}
	path, err := exec.LookPath("node")
	if err != nil {
		return "", errors.New("node is not installed")
	}
	for _, pkg := range PeerPackages {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", pkg, "package.json")); err != nil {
			return "", fmt.Errorf("%s is not installed (run npm ci in %s)", pkg, dir)
		}
	}
	return path, nil
}

// peerOutput is what peers.mjs prints.
type peerOutput struct {
	Node  string       `json:"node"`
	Peers []peerResult `json:"peers"`
}

type peerResult struct {
	Encoder   string    `json:"encoder"`
	Package   string    `json:"package"`
	Version   string    `json:"version"`
	Transport string    `json:"transport"` // "reliable" or "unreliable"
	Sizes     []float64 `json:"sizes"`     // bytes per client-snapshot, ticks from skip on
	EncodeNS  float64   `json:"encode_ns"`
	UpdateNS  float64   `json:"update_ns"`
	DecodeNS  float64   `json:"decode_ns"`
	Checked   int       `json:"checked"` // client-snapshots decoded and found equal to the recording
}

// runPeerProgram runs peers.mjs on the export at path and checks that every peer decoded
// every client-snapshot of the recording (ticks recorded ticks, clients clients).
func runPeerProgram(ctx context.Context, node, dir, path string, ticks, clients, skip int) (*peerOutput, error) {
	ctx, cancel := context.WithTimeout(ctx, peerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "peers.mjs", path)
	cmd.Dir = dir
	stdout := &boundedBuffer{max: peerMaxOutput}
	stderr := &boundedBuffer{max: peerMaxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if ctx.Err() != nil {
			return nil, fmt.Errorf("peers: node did not finish within %v", peerTimeout)
		}
		return nil, fmt.Errorf("peers: %v: %s", err, msg)
	}
	if stdout.over {
		return nil, fmt.Errorf("peers: node printed more than %d bytes", peerMaxOutput)
	}
	var out peerOutput
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		return nil, fmt.Errorf("peers: output: %w", err)
	}
	want := map[string]bool{EncColyseus: true, EncGeckos: true}
	for _, p := range out.Peers {
		if !want[p.Encoder] {
			return nil, fmt.Errorf("peers: unexpected or repeated peer %q", p.Encoder)
		}
		delete(want, p.Encoder)
		if p.Checked != ticks*clients {
			return nil, fmt.Errorf("peers: %s decoded and checked %d client-snapshots of %d", p.Encoder, p.Checked, ticks*clients)
		}
		if len(p.Sizes) != (ticks-skip)*clients {
			return nil, fmt.Errorf("peers: %s measured %d client-snapshots, want %d", p.Encoder, len(p.Sizes), (ticks-skip)*clients)
		}
	}
	if len(want) > 0 {
		return nil, fmt.Errorf("peers: no result from %d peers", len(want))
	}
	return &out, nil
}

// measurePeers runs the peers on rec and returns their rows: every loss rate for geckos (its
// snapshots need no acknowledgement, so it sends the same bytes whatever is lost), 0% only for
// colyseus (its patches need a reliable, ordered transport). q3 finds the Quake 3 row of a loss
// rate, for the ratio.
func measurePeers(rec *Recording, o Options, node string, st *PeerStatus, q3 func(loss float64) *Row) ([]Row, error) {
	t, _, err := Tables(rec)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "snapwire-peers-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, rec.Scenario.Name+".jsonl")
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := ExportPeers(f, rec, t, o.Skip); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	out, err := runPeerProgram(context.Background(), node, o.PeersDir, path, len(rec.Ticks), rec.Clients, o.Skip)
	if err != nil {
		return nil, err
	}
	st.Node = out.Node
	if st.Versions == nil {
		st.Versions = map[string]string{}
	}
	var rows []Row
	for _, p := range out.Peers {
		st.Versions[p.Encoder] = p.Version
		r := Row{Scenario: rec.Scenario.Name, Encoder: p.Encoder, Clients: rec.Clients, Visible: rec.MeanVisible(),
			NsPerClientSnapshot: p.EncodeNS, PeerUpdateNS: p.UpdateNS, DecodeNS: p.DecodeNS, LossGrowth: 1}
		r.BytesMean, r.BytesP99 = meanP99(p.Sizes)
		r.Kbps = r.BytesMean * 8 * SnapshotRate / 1000
		r.KbpsUDP = (r.BytesMean + UDPIPBytes) * 8 * SnapshotRate / 1000
		for _, loss := range o.Losses {
			if loss != 0 && p.Transport != "unreliable" {
				continue
			}
			x := r
			x.Loss = loss
			if q := q3(loss); q != nil && q.BytesMean > 0 {
				x.Ratio = x.BytesMean / q.BytesMean
			}
			rows = append(rows, x)
		}
	}
	return rows, nil
}

// boundedBuffer keeps at most max bytes and notes whether more were written.
type boundedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// peerTransport names each encoder's transport in the peers table.
var peerTransport = map[string]string{
	EncDoom3: "UDP (netchan)", EncDoom3Huff: "UDP (netchan)", EncDoom3RC: "UDP (netchan)", EncQuake3: "UDP",
	EncColyseus: "reliable (WebSocket)", EncGeckos: "unreliable (WebRTC data channel)",
}

// writePeers writes the peers table: every encoder on every scenario at 0% loss, then the
// encoders that run over an unreliable transport at the other loss rates; or why the peers
// did not run.
func (r *Result) writePeers(b *strings.Builder) {
	p := func(format string, args ...any) { fmt.Fprintf(b, format, args...) }
	p("\n## Peer libraries on the same frames\n\n")
	if !r.Peers.Ran {
		p("The peer libraries were not run: %s. (With Node installed, `npm ci` in internal/bench/peers, then `snapwire bench`.)\n\n", r.Peers.Reason)
		return
	}
	p("Two widely used JavaScript libraries encode the same recorded ticks (every entity's quantised fields, every client's PVS, the non-PVS states), run by internal/bench/peers/peers.mjs under Node %s the way their users run them, and every client-snapshot of every tick is decoded by the library's own decoder and compared with the recording (every visible entity's fields, no other entity, the states); a difference fails the run.\n\n", r.Peers.Node)
	p("- `colyseus`: @colyseus/schema %s, the delta state sync of the Colyseus framework. The room state holds one MapSchema per entity type keyed by entity number and marked `.view()`; each client's StateView holds exactly the entities of its PVS (`view.add` as one enters, `view.remove` as it leaves), the scoreboard is a shared field, each player's statistics an entry of a `.view()` map in its own view (the package README, \"StateView\" and \"Encoding changes per views\"). Each tick runs what @colyseus/core's SchemaSerializer.applyPatches runs: `encode()` once for the shared changes, `encodeView()` per client, `discardChanges()`. Its patches must arrive complete and in order (the framework sends them over a WebSocket), so it is measured at 0%% loss only.\n", r.Peers.Versions[EncColyseus])
	p("- `geckos`: @geckos.io/typed-array-buffer-schema %s, the binary schema that @geckos.io/snapshot-interpolation's users encode their snapshots with (both packages' READMEs). Every tick every client gets a full snapshot of what it sees, shaped like that library's snapshots (a 6-character id, a 64-bit time, `state` holding one array per entity type), through `Model.toBuffer`, decoded by `Model.fromBuffer`. No snapshot depends on another and nothing is acknowledged (geckos.io sends over an unreliable WebRTC data channel), so the bytes at every loss rate are those at 0%%: the loss rows repeat them.\n\n", r.Peers.Versions[EncGeckos])
	p("Every field is declared with the narrowest of the peer's types that holds its width in bits (colyseus `boolean`, `uint8`, `uint16`, `uint32`; geckos `uint8`, `uint16`, `uint32`, entity numbers `uint16`): both have only byte-aligned types, so a 2-bit door state costs a byte and a half float two. Bytes are what each library's encoder returns for one client and tick; Colyseus's 1-byte room message code, WebSocket and WebRTC framing are left out, as our channel header is. What the peers do not carry and DOOM III does: the PVS bit string, other players' latest commands, the reliable \"apply\" messages. Encode µs per client-snapshot (the pass after a warm-up pass of the same recording, `process.hrtime`): `colyseus`: `encode()` and `discardChanges()` shared by the clients plus the client's `encodeView()`; its change tracking, which runs as the tick's values are assigned to the room state and the views follow the PVS, is the next column (the work DOOM III's Build does by comparing with the base). `geckos`: `toBuffer` alone (building the snapshot object is left out). DOOM III and Quake 3: as in the tables above, this loss rate's pass.\n\n")
	p("| scenario | loss | encoder | transport | bytes mean | bytes p99 | / doom3+huff | kbit/s | +UDP/IP | encode µs | change tracking µs | decode µs |\n|---|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	encs := []string{EncDoom3, EncDoom3Huff, EncDoom3RC, EncQuake3, EncColyseus, EncGeckos}
	row := func(s string, l float64, enc string) {
		x, h := r.Find(s, l, enc), r.Find(s, l, EncDoom3Huff)
		if x == nil || h == nil || h.BytesMean == 0 {
			return
		}
		track := "-"
		if x.PeerUpdateNS > 0 {
			track = fmt.Sprintf("%.1f", x.PeerUpdateNS/1000)
		}
		name := enc
		if enc == EncColyseus || enc == EncGeckos {
			name = "**" + enc + "**"
		}
		p("| %s | %.0f%% | %s | %s | %.1f | %.0f | %.2f | %.1f | %.1f | %.1f | %s | %.1f |\n", s, l*100, name, peerTransport[enc],
			x.BytesMean, x.BytesP99, x.BytesMean/h.BytesMean, x.Kbps, x.KbpsUDP, x.NsPerClientSnapshot/1000, track, x.DecodeNS/1000)
	}
	for _, s := range r.Scenarios {
		for _, e := range encs {
			row(s.Name, 0, e)
		}
	}
	for _, l := range r.Options.Losses {
		if l == 0 {
			continue
		}
		for _, s := range r.Scenarios {
			for _, e := range encs {
				if e != EncColyseus {
					row(s.Name, l, e)
				}
			}
		}
	}
	p("\n")
}

// peerNotes is the Notes paragraph on the peers, with this run's figures; "" when they did
// not run.
func peerNotes(r *Result) string {
	if !r.Peers.Ran {
		return ""
	}
	span := func(enc string) (lo, hi float64, loS, hiS string) {
		lo, hi = math.Inf(1), math.Inf(-1)
		for _, s := range r.Scenarios {
			x, h := r.Find(s.Name, 0, enc), r.Find(s.Name, 0, EncDoom3Huff)
			if x == nil || h == nil || h.BytesMean == 0 {
				continue
			}
			v := x.BytesMean / h.BytesMean
			if v < lo {
				lo, loS = v, s.Name
			}
			if v > hi {
				hi, hiS = v, s.Name
			}
		}
		return
	}
	cl, ch, cls, chs := span(EncColyseus)
	gl, gh, gls, ghs := span(EncGeckos)
	if math.IsInf(cl, 0) || math.IsInf(gl, 0) {
		return ""
	}
	return fmt.Sprintf("**Peer libraries** (the peers table). At 0%% loss @colyseus/schema sends %.2fx (%s) to %.2fx (%s) the bytes of snapwire's pipeline (`doom3+huff`), and geckos.io's schema %.2fx (%s) to %.2fx (%s). "+
		"Colyseus also sends only what changed, per client view, but each changed field whole in its byte-aligned type behind a byte of field index and operation, each changed structure behind a byte and its reference id, and an entity entering a view in full with its map key; it has no common base, and needs a reliable, ordered transport. "+
		"geckos.io's snapshots carry every visible entity in full every tick, so their size follows the PVS rather than what changed, and a lost one costs nothing after it. Both peers' types are byte-aligned (their own limit), which our bit-packed fields are not.\n\n",
		cl, cls, ch, chs, gl, gls, gh, ghs)
}
