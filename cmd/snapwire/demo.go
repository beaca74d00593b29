package main

// The interim "snapwire demo": until the engine (server, client, snapshot)
// lands, it exercises the message channel (DOOM III §3) the way the engine
// will: one server and N clients over a simulated network in virtual time,
// a connectionless handshake that hands out connection ids, snapshot-sized
// unreliable messages down at 20 Hz within each client's rate, user
// command-sized ones up at 60 Hz, and reliable messages both ways.

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/snapwire/snapwire/netchan"
	"github.com/snapwire/snapwire/netsim"
)

func init() {
	register(command{
		name:    "demo",
		summary: "run a server and clients over a simulated network (interim: message channel traffic)",
		run:     runDemo,
	})
}

// percentValue is a flag holding a fraction, written "2%" or "0.02".
type percentValue float64

func (p *percentValue) String() string {
	return strconv.FormatFloat(float64(*p)*100, 'g', -1, 64) + "%"
}

func (p *percentValue) Set(s string) error {
	s = strings.TrimSpace(s)
	scale := 1.0
	if strings.HasSuffix(s, "%") {
		s, scale = strings.TrimSuffix(s, "%"), 0.01
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	v *= scale
	if v < 0 || v > 1 {
		return errors.New("must be between 0% and 100%")
	}
	*p = percentValue(v)
	return nil
}

type demoOptions struct {
	Clients  int           `json:"clients"`
	Latency  time.Duration `json:"-"`
	Jitter   time.Duration `json:"-"`
	Loss     float64       `json:"loss"`
	Duration time.Duration `json:"-"`
	Seed     uint64        `json:"seed"`
	Rate     int           `json:"rate_bytes_per_second"`
	// Echoed in milliseconds for the JSON.
	LatencyMS  float64 `json:"latency_rtt_ms"`
	JitterMS   float64 `json:"jitter_ms"`
	DurationMS float64 `json:"duration_ms"`
}

// demoSecond is one progress line.
type demoSecond struct {
	Second            int     `json:"second"`
	Connected         int     `json:"connected"`
	DownPackets       uint64  `json:"down_packets"`
	DownBytes         uint64  `json:"down_bytes"`
	UpPackets         uint64  `json:"up_packets"`
	UpBytes           uint64  `json:"up_bytes"`
	SnapshotShare     float64 `json:"snapshot_share"`
	CommandShare      float64 `json:"command_share"`
	ReliablesQueued   int     `json:"reliables_queued"`
	ReliablesDelivery int     `json:"reliables_delivered"`
	MeanRTTms         float64 `json:"mean_rtt_ms"`
}

// demoClient is the summary of one connection.
type demoClient struct {
	Client              int     `json:"client"`
	ConnID              uint16  `json:"conn_id"`
	ServerPacketsOut    uint64  `json:"server_packets_out"`
	ServerBytesOut      uint64  `json:"server_bytes_out"`
	ClientPacketsOut    uint64  `json:"client_packets_out"`
	ClientBytesOut      uint64  `json:"client_bytes_out"`
	SnapshotsSent       int     `json:"snapshots_sent"`
	SnapshotsSkipped    int     `json:"snapshots_skipped_for_rate"`
	SnapshotsDelivered  int     `json:"snapshots_delivered"`
	SnapshotShare       float64 `json:"snapshot_share"`
	CommandsSent        int     `json:"commands_sent"`
	CommandsDelivered   int     `json:"commands_delivered"`
	CommandShare        float64 `json:"command_share"`
	ReliablesDownQueued int     `json:"reliables_down_queued"`
	ReliablesDownDeliv  int     `json:"reliables_down_delivered"`
	ReliablesUpQueued   int     `json:"reliables_up_queued"`
	ReliablesUpDeliv    int     `json:"reliables_up_delivered"`
	ReliableOrderErrors int     `json:"reliable_order_errors"`
	UnreliableOrderErrs int     `json:"unreliable_order_errors"`
	ServerRTTms         float64 `json:"server_rtt_ms"`
	ClientRTTms         float64 `json:"client_rtt_ms"`
	ServerLossEstimate  float64 `json:"server_loss_estimate"`
	ClientLossEstimate  float64 `json:"client_loss_estimate"`
}

type demoReport struct {
	Options  demoOptions  `json:"options"`
	Seconds  []demoSecond `json:"seconds"`
	Clients  []demoClient `json:"clients"`
	Network  netsim.Stats `json:"network"`
	Elapsed  float64      `json:"wall_seconds"`
	Finished bool         `json:"all_reliables_delivered"`
}

// demoInbox checks what one channel end receives: reliables numbered from
// 0, unreliables with increasing numbers.
type demoInbox struct {
	nextRel   uint32
	lastUnrel int64
	unrel     int
	relErrors int
	orderErrs int
}

func (d *demoInbox) Reliable(msg []byte) {
	if len(msg) < 4 || binary.LittleEndian.Uint32(msg) != d.nextRel {
		d.relErrors++
	}
	d.nextRel++
}

func (d *demoInbox) Unreliable(typ netchan.MessageType, msg []byte) {
	if len(msg) < 4 {
		d.orderErrs++
		return
	}
	n := int64(binary.LittleEndian.Uint32(msg))
	if n <= d.lastUnrel {
		d.orderErrs++
	}
	d.lastUnrel = n
	d.unrel++
}

type demoConn struct {
	index    int
	ch       *netchan.Channel // server side
	addr     netip.AddrPort
	in       demoInbox // what the server received from this client
	snaps    int
	skipped  int
	relsDown uint32
}

type demoPeer struct {
	ep      *netsim.Endpoint
	ch      *netchan.Channel // nil until connected
	in      demoInbox
	cmds    int
	relsUp  uint32
	lastTry time.Duration
	tried   bool
}

const (
	demoTypeSnapshot netchan.MessageType = 1
	demoTypeCommand  netchan.MessageType = 2
	demoFrame                            = time.Second / 60
)

func runDemo(args []string, stdout io.Writer) error {
	fs := newFlagSet("demo")
	var o demoOptions
	loss := percentValue(0.02)
	fs.IntVar(&o.Clients, "clients", 8, "number of clients")
	fs.DurationVar(&o.Latency, "latency", 80*time.Millisecond, "round-trip latency")
	fs.DurationVar(&o.Jitter, "jitter", 10*time.Millisecond, "jitter, +- per direction")
	fs.Var(&loss, "loss", "packet loss each way, e.g. 2% or 0.02")
	fs.DurationVar(&o.Duration, "duration", 20*time.Second, "virtual time to run")
	fs.Uint64Var(&o.Seed, "seed", 1, "random seed (network and traffic)")
	fs.IntVar(&o.Rate, "rate", 25000, "server to client rate, bytes per second")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o.Loss = float64(loss)
	if o.Clients < 1 || o.Clients > 1000 {
		return errors.New("--clients must be 1..1000")
	}
	if o.Latency < 0 || o.Jitter < 0 || o.Duration <= 0 || o.Duration > time.Hour {
		return errors.New("--latency and --jitter must be >= 0, --duration in (0, 1h]")
	}
	o.LatencyMS = float64(o.Latency) / float64(time.Millisecond)
	o.JitterMS = float64(o.Jitter) / float64(time.Millisecond)
	o.DurationMS = float64(o.Duration) / float64(time.Millisecond)

	start := time.Now() // only to report the demo's own speed
	rep, err := simulateDemo(o, func(s demoSecond) {
		if !*asJSON {
			fmt.Fprintf(stdout, "t=%3ds  clients %d/%d  down %5d pkts %7.1f KB  up %5d pkts %7.1f KB  snapshots %5.1f%%  commands %5.1f%%  reliables %d/%d  rtt %.0f ms\n",
				s.Second, s.Connected, o.Clients, s.DownPackets, float64(s.DownBytes)/1024, s.UpPackets, float64(s.UpBytes)/1024,
				100*s.SnapshotShare, 100*s.CommandShare, s.ReliablesDelivery, s.ReliablesQueued, s.MeanRTTms)
		}
	})
	if err != nil {
		return err
	}
	rep.Elapsed = time.Since(start).Seconds()
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	fmt.Fprintln(stdout)
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "client\tconn id\tpkts down\tKB down\tpkts up\tKB up\tsnapshots\tdelivered\tcommands\tdelivered\treliables down\treliables up\trtt srv\trtt cli\t")
	for _, c := range rep.Clients {
		fmt.Fprintf(tw, "%d\t%04x\t%d\t%.1f\t%d\t%.1f\t%d\t%.1f%%\t%d\t%.1f%%\t%d/%d\t%d/%d\t%.0f ms\t%.0f ms\t\n",
			c.Client, c.ConnID, c.ServerPacketsOut, float64(c.ServerBytesOut)/1024, c.ClientPacketsOut, float64(c.ClientBytesOut)/1024,
			c.SnapshotsSent, 100*c.SnapshotShare, c.CommandsSent, 100*c.CommandShare,
			c.ReliablesDownDeliv, c.ReliablesDownQueued, c.ReliablesUpDeliv, c.ReliablesUpQueued, c.ServerRTTms, c.ClientRTTms)
	}
	tw.Flush()
	ns := rep.Network
	fmt.Fprintf(stdout, "\nnetwork: %d sent, %d delivered, %d lost, %d duplicated; all reliables delivered: %v; %.2f s wall for %v virtual\n",
		ns.Sent, ns.Delivered, ns.Lost, ns.Duplicated, rep.Finished, rep.Elapsed, o.Duration)
	return nil
}

// simulateDemo runs the demo and calls progress once per virtual second.
func simulateDemo(o demoOptions, progress func(demoSecond)) (*demoReport, error) {
	net := netsim.New(o.Seed)
	net.SetDefault(netsim.LinkConfig{Latency: o.Latency / 2, Jitter: o.Jitter, Loss: o.Loss})
	srvAddr := netip.MustParseAddrPort("10.0.0.1:27960")
	srv, err := net.Listen(srvAddr)
	if err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0x5eed))
	peers := make([]*demoPeer, o.Clients)
	for i := range peers {
		addr := netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, byte(i >> 8), byte(i)}), 50000)
		ep, err := net.Listen(addr)
		if err != nil {
			return nil, err
		}
		peers[i] = &demoPeer{ep: ep, in: demoInbox{lastUnrel: -1}}
	}
	conns := map[netchan.ConnID]*demoConn{}
	byAddr := map[netip.AddrPort]*demoConn{}
	cfg := netchan.Config{Rate: o.Rate}
	buf := make([]byte, 65536)
	snapshot := make([]byte, 600)
	command := make([]byte, 40)
	rep := &demoReport{Options: o}

	fill := func(b []byte, n int, density int) []byte {
		binary.LittleEndian.PutUint32(b, uint32(n))
		for i := 4; i < len(b); i++ {
			b[i] = 0
			if rng.IntN(density) == 0 {
				b[i] = byte(rng.Uint32())
			}
		}
		return b
	}

	end := o.Duration
	drainEnd := end + 2*time.Second // no new messages: let reliables finish
	frame := 0
	var prev demoSecond
	for now := time.Duration(0); now <= drainEnd; now, frame = now+demoFrame, frame+1 {
		net.AdvanceTo(now)
		// Server: connectionless handshake, then channel packets by id.
		for {
			k, from, ok := srv.ReadFrom(buf)
			if !ok {
				break
			}
			p := buf[:k]
			if netchan.IsConnectionless(p) {
				if string(p[4:]) != "connect" {
					continue
				}
				c := byAddr[from]
				if c == nil {
					id := netchan.ConnID(rng.Uint32())
					for id == 0 || conns[id] != nil {
						id = netchan.ConnID(rng.Uint32())
					}
					c = &demoConn{index: len(conns), ch: netchan.New(cfg, id), addr: from, in: demoInbox{lastUnrel: -1}}
					conns[id], byAddr[from] = c, c
				}
				reply := netchan.AppendConnectionless(nil, []byte("connectResponse "+strconv.Itoa(int(c.ch.ID()))))
				_ = srv.WriteTo(reply, from)
				continue
			}
			id, ok := netchan.PeekConnID(p)
			c := conns[id]
			if !ok || c == nil {
				continue
			}
			if c.ch.Receive(now, p, &c.in) == nil {
				c.addr = from
			}
		}
		// Clients.
		for _, pr := range peers {
			for {
				k, _, ok := pr.ep.ReadFrom(buf)
				if !ok {
					break
				}
				p := buf[:k]
				if netchan.IsConnectionless(p) {
					var id int
					if pr.ch == nil {
						if _, err := fmt.Sscanf(string(p[4:]), "connectResponse %d", &id); err == nil {
							pr.ch = netchan.New(netchan.Config{}, netchan.ConnID(id))
						}
					}
					continue
				}
				if pr.ch != nil {
					_ = pr.ch.Receive(now, p, &pr.in)
				}
			}
			if pr.ch == nil {
				if !pr.tried || now-pr.lastTry >= 500*time.Millisecond {
					pr.tried, pr.lastTry = true, now
					_ = pr.ep.WriteTo(netchan.AppendConnectionless(nil, []byte("connect")), srvAddr)
				}
				continue
			}
			emit := func(pk []byte) { _ = pr.ep.WriteTo(pk, srvAddr) }
			if now >= end {
				if frame%3 == 0 {
					_ = pr.ch.Send(now, netchan.TypeNone, nil, emit)
				}
				continue
			}
			if rng.IntN(120) == 0 { // a chat line or a vote, every ~2 s
				msg := binary.LittleEndian.AppendUint32(make([]byte, 0, 24), pr.relsUp)
				if pr.ch.QueueReliable(append(msg, "say hello"...)) == nil {
					pr.relsUp++
				}
			}
			_ = pr.ch.Send(now, demoTypeCommand, fill(command, pr.cmds, 3), emit)
			pr.cmds++
		}
		// Server: snapshots at 20 Hz within each client's rate.
		for _, c := range conns {
			emit := func(pk []byte) { _ = srv.WriteTo(pk, c.addr) }
			if now >= end {
				if frame%3 == 0 {
					_ = c.ch.Send(now, netchan.TypeNone, nil, emit)
				}
				continue
			}
			if frame%60 == c.index%60 { // a reliable game event every second
				msg := binary.LittleEndian.AppendUint32(make([]byte, 0, 40), c.relsDown)
				if c.ch.QueueReliable(append(msg, "event: item picked up"...)) == nil {
					c.relsDown++
				}
			}
			if frame%3 != 0 {
				continue
			}
			if !c.ch.CanSend(now, len(snapshot)) {
				c.skipped++
				continue
			}
			_ = c.ch.Send(now, demoTypeSnapshot, fill(snapshot, c.snaps, 5), emit)
			c.snaps++
		}
		if frame > 0 && frame%60 == 0 && now <= end {
			s := demoTotals(frame/60, peers, conns)
			delta := s
			delta.DownPackets -= prev.DownPackets
			delta.DownBytes -= prev.DownBytes
			delta.UpPackets -= prev.UpPackets
			delta.UpBytes -= prev.UpBytes
			prev = s
			rep.Seconds = append(rep.Seconds, delta)
			progress(delta)
		}
	}
	rep.Finished = true
	for i, pr := range peers {
		dc := demoClient{Client: i}
		if pr.ch == nil {
			rep.Finished = false
			rep.Clients = append(rep.Clients, dc)
			continue
		}
		c := conns[pr.ch.ID()]
		ss, cs := c.ch.Stats(), pr.ch.Stats()
		dc = demoClient{
			Client: i, ConnID: uint16(pr.ch.ID()),
			ServerPacketsOut: ss.PacketsOut, ServerBytesOut: ss.BytesOut,
			ClientPacketsOut: cs.PacketsOut, ClientBytesOut: cs.BytesOut,
			SnapshotsSent: c.snaps, SnapshotsSkipped: c.skipped, SnapshotsDelivered: pr.in.unrel,
			SnapshotShare: share(pr.in.unrel, c.snaps),
			CommandsSent:  pr.cmds, CommandsDelivered: c.in.unrel, CommandShare: share(c.in.unrel, pr.cmds),
			ReliablesDownQueued: int(c.relsDown), ReliablesDownDeliv: int(pr.in.nextRel),
			ReliablesUpQueued: int(pr.relsUp), ReliablesUpDeliv: int(c.in.nextRel),
			ReliableOrderErrors: pr.in.relErrors + c.in.relErrors,
			UnreliableOrderErrs: pr.in.orderErrs + c.in.orderErrs,
			ServerRTTms:         float64(ss.RTT) / float64(time.Millisecond),
			ClientRTTms:         float64(cs.RTT) / float64(time.Millisecond),
			ServerLossEstimate:  ss.Loss, ClientLossEstimate: cs.Loss,
		}
		if dc.ReliablesDownDeliv != dc.ReliablesDownQueued || dc.ReliablesUpDeliv != dc.ReliablesUpQueued || dc.ReliableOrderErrors > 0 {
			rep.Finished = false
		}
		rep.Clients = append(rep.Clients, dc)
	}
	rep.Network = net.Stats()
	return rep, nil
}

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// demoTotals sums the cumulative counters over all connections.
func demoTotals(sec int, peers []*demoPeer, conns map[netchan.ConnID]*demoConn) demoSecond {
	s := demoSecond{Second: sec}
	var snaps, snapsIn, cmds, cmdsIn int
	var rtt time.Duration
	for _, pr := range peers {
		if pr.ch == nil {
			continue
		}
		c := conns[pr.ch.ID()]
		s.Connected++
		ss, cs := c.ch.Stats(), pr.ch.Stats()
		s.DownPackets += ss.PacketsOut
		s.DownBytes += ss.BytesOut
		s.UpPackets += cs.PacketsOut
		s.UpBytes += cs.BytesOut
		snaps += c.snaps
		snapsIn += pr.in.unrel
		cmds += pr.cmds
		cmdsIn += c.in.unrel
		s.ReliablesQueued += int(c.relsDown + pr.relsUp)
		s.ReliablesDelivery += int(pr.in.nextRel + c.in.nextRel)
		rtt += ss.RTT
	}
	s.SnapshotShare = share(snapsIn, snaps)
	s.CommandShare = share(cmdsIn, cmds)
	if s.Connected > 0 {
		s.MeanRTTms = float64(rtt) / float64(s.Connected) / float64(time.Millisecond)
	}
	return s
}
