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

	"github.com/snapwire/snapwire/internal/report"
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
		r.BytesMean, r.BytesP99 = report.MeanPercentile(p.Sizes, 0.99)
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

// peerRow is a line of the peers table: encoder Enc (shown as Name) on scenario Scenario at
// Loss, with snapwire's pipeline's row (Ours) for the ratio.
type peerRow struct {
	Scenario        string
	Loss            float64
	Name, Transport string
	X, Ours         *Row
}

// PeerRows are the lines of the peers table (the "peers" template of peers.md.tmpl): every
// encoder on every scenario at 0% loss, then the encoders that run over an unreliable
// transport at the other loss rates.
func (v markdownView) PeerRows() []peerRow {
	var out []peerRow
	encs := []string{EncDoom3, EncDoom3Huff, EncDoom3RC, EncQuake3, EncColyseus, EncGeckos}
	row := func(s string, l float64, enc string) {
		x, h := v.Find(s, l, enc), v.Find(s, l, EncDoom3Huff)
		if x == nil || h == nil || h.BytesMean == 0 {
			return
		}
		name := enc
		if enc == EncColyseus || enc == EncGeckos {
			name = "**" + enc + "**"
		}
		out = append(out, peerRow{s, l, name, peerTransport[enc], x, h})
	}
	for _, s := range v.Scenarios {
		for _, e := range encs {
			row(s.Name, 0, e)
		}
	}
	for _, l := range v.Options.Losses {
		if l == 0 {
			continue
		}
		for _, s := range v.Scenarios {
			for _, e := range encs {
				if e != EncColyseus {
					row(s.Name, l, e)
				}
			}
		}
	}
	return out
}

// peerSpan is the lowest and highest ratio of a peer's bytes to snapwire's pipeline's over
// the scenarios, and where.
type peerSpan struct {
	Lo, Hi         float64
	LoName, HiName string
}

// peerNotes is the Notes paragraph on the peers ("peer-notes" of peers.md.tmpl), with this
// run's figures; "" when they did not run.
func peerNotes(r *Result) (string, error) {
	if !r.Peers.Ran {
		return "", nil
	}
	span := func(enc string) (s peerSpan) {
		s.Lo, s.Hi = math.Inf(1), math.Inf(-1)
		for _, sc := range r.Scenarios {
			x, h := r.Find(sc.Name, 0, enc), r.Find(sc.Name, 0, EncDoom3Huff)
			if x == nil || h == nil || h.BytesMean == 0 {
				continue
			}
			v := x.BytesMean / h.BytesMean
			if v < s.Lo {
				s.Lo, s.LoName = v, sc.Name
			}
			if v > s.Hi {
				s.Hi, s.HiName = v, sc.Name
			}
		}
		return s
	}
	c, g := span(EncColyseus), span(EncGeckos)
	if math.IsInf(c.Lo, 0) || math.IsInf(g.Lo, 0) {
		return "", nil
	}
	var b strings.Builder
	err := markdown.ExecuteTemplate(&b, "peer-notes", struct{ Colyseus, Geckos peerSpan }{c, g})
	return b.String(), err
}
