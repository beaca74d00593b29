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
