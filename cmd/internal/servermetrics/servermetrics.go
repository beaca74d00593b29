// Package servermetrics exports a snapwire server's counters to Prometheus
// (github.com/prometheus/client_golang): clients, frames and their timing,
// snapshots, bytes and packets each way, commands that came late or were
// duplicated, common-base applies, and the packets rejected as bad,
// unauthenticated or rate-limited, plus the distribution of the clients'
// loss and round-trip time.
//
// A process may host many matches (server.Host, "serve --matches"): the
// metrics above are the process's totals, summed over its matches (with
// those of the matches ended, so that a counter never goes back), and the
// snapwire_match_* families give each match's clients, frames, snapshots
// and bytes under a "match" label (the default match's is ""): 6 series a
// match beside the process's 86 (histogram buckets included), 854 in all
// for 128 matches (TestCollectorSeriesAt128Matches).
//
// A Collector reads everything on a scrape, on the server's own goroutine
// (server.Runner.DoHost), from counters the core keeps anyway (serverhook.Stats,
// server.Totals): between scrapes the game loop does no metric work, and
// the read itself allocates nothing on the loop. Names follow Prometheus
// conventions: base units (seconds, bytes), _total for counters.
package servermetrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/server"
)

// Source is what a Collector reads: a *server.Runner.
type Source interface {
	// DoHost runs f on the goroutine that owns the host and its matches;
	// false when the host no longer runs.
	DoHost(ctx context.Context, f func(now time.Duration, h *server.Host)) bool
	// ReadStats returns the datagrams the socket reader received and
	// dropped for want of a free buffer.
	ReadStats() (received, dropped uint64)
}

// EndedSource is a Source that also keeps the counters of the matches it
// ended, summed, which the process's totals then include. Ended runs on
// the host's goroutine (inside DoHost).
type EndedSource interface {
	Source
	Ended() (serverhook.Stats, server.Totals)
}

// Timeout bounds a scrape's wait for the game loop.
const Timeout = 2 * time.Second

// Collector is a prometheus.Collector for one server.
type Collector struct {
	src Source

	mu      sync.Mutex // one scrape at a time: the buffers below are reused
	stats   serverhook.Stats
	totals  server.Totals
	clients []server.ClientStats
	matches []matchFigures

	clientsDesc, framesDesc, framesLateDesc, frameTimeDesc, buildTimeDesc *prometheus.Desc
	snapsDesc, snapsSkippedDesc, snapBytesDesc, loadGameDesc, appliesDesc *prometheus.Desc
	bytesDesc, packetsDesc, lostDesc, resendsDesc                         *prometheus.Desc
	cmdsEarlyDesc, cmdsDupDesc, cmdsLateDesc                              *prometheus.Desc
	connectsDesc, refusedDesc, disconnectsDesc, timeoutsDesc              *prometheus.Desc
	rejectedDesc, readerDropsDesc, lossDesc, rttDesc, upDesc              *prometheus.Desc
	reservationsDesc, resumesDesc                                         *prometheus.Desc
	matchesDesc, matchClientsDesc, matchFramesDesc, matchSnapsDesc        *prometheus.Desc
	matchSkippedDesc, matchBytesDesc                                      *prometheus.Desc
}

// matchFigures are one match's figures in a scrape.
type matchFigures struct {
	name    string
	clients int
	frames  uint64
	totals  server.Totals
}

// New returns a Collector reading src. Register it with a
// prometheus.Registry.
func New(src Source) *Collector {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc("snapwire_"+name, help, labels, nil)
	}
	return &Collector{
		src:              src,
		clients:          make([]server.ClientStats, 0, 64),
		upDesc:           d("up", "1 when the last scrape read the server, 0 when its game loop did not answer."),
		clientsDesc:      d("clients", "Connected clients, by whether they are in the current game or loading it, and the slots held for a client to resume in.", "state"),
		framesDesc:       d("frames_total", "Game frames run."),
		framesLateDesc:   d("frames_late_total", "Game frames run more than a frame duration after they were due."),
		frameTimeDesc:    d("frame_duration_seconds", "Time to run a game frame, its events and its snapshots."),
		buildTimeDesc:    d("snapshot_build_duration_seconds", "Time to build one client's snapshot."),
		snapsDesc:        d("snapshots_sent_total", "Snapshots sent to clients."),
		snapsSkippedDesc: d("snapshots_skipped_total", "Snapshots not sent because the client's byte rate was used up."),
		snapBytesDesc:    d("snapshot_bytes_total", "Bytes of snapshot bodies built, before the channel's compression."),
		loadGameDesc:     d("load_game_sent_total", "Load-game messages sent to clients not in the current game."),
		appliesDesc:      d("base_applies_total", "Acknowledged snapshots applied to a client's common base."),
		bytesDesc:        d("channel_bytes_total", "UDP payload bytes of the clients' channels, by direction.", "direction"),
		packetsDesc:      d("channel_packets_total", "UDP packets of the clients' channels, by direction.", "direction"),
		lostDesc:         d("client_messages_lost_total", "Client messages lost on the way in (sequence gaps)."),
		resendsDesc:      d("reliable_resends_total", "Reliable messages carried again after their first packet."),
		cmdsEarlyDesc:    d("commands_in_time_total", "Frames run with a client command that arrived in time."),
		cmdsDupDesc:      d("commands_duplicated_total", "Frames that reused a client's previous command because the next was late."),
		cmdsLateDesc:     d("commands_late_total", "Client commands that arrived after their frame ran."),
		connectsDesc:     d("connects_total", "Clients accepted."),
		refusedDesc:      d("connects_refused_total", "Connects refused (full, password, token, throttled, ...)."),
		disconnectsDesc:  d("disconnects_total", "Clients that left, were kicked or timed out."),
		timeoutsDesc:     d("timeouts_total", "Clients dropped for silence."),
		reservationsDesc: d("slot_reservations_total", "Slots held for a silent client to resume in (server.Advanced.ReconnectGrace); the clients gauge's \"reserved\" state counts those held now."),
		resumesDesc:      d("resumes_total", "Sessions resumed in a held slot with the same connect token."),
		rejectedDesc:     d("packets_rejected_total", "Packets dropped unread, by reason.", "reason"),
		readerDropsDesc:  d("socket_dropped_packets_total", "Datagrams the socket reader dropped because every packet buffer was in use."),
		lossDesc:         d("client_loss_ratio", "Smoothed fraction of each connected client's messages lost, over clients."),
		rttDesc:          d("client_rtt_seconds", "Smoothed round-trip time of each connected client, over clients."),
		matchesDesc:      d("matches", "Matches the process hosts."),
		matchClientsDesc: d("match_clients", "Connected clients of one match.", "match"),
		matchFramesDesc:  d("match_frames_total", "Game frames one match ran.", "match"),
		matchSnapsDesc:   d("match_snapshots_sent_total", "Snapshots one match sent to its clients.", "match"),
		matchSkippedDesc: d("match_snapshots_skipped_total", "Snapshots one match did not send because the client's byte rate was used up.", "match"),
		matchBytesDesc:   d("match_channel_bytes_total", "UDP payload bytes of one match's clients' channels, by direction.", "match", "direction"),
	}
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.upDesc, c.clientsDesc, c.framesDesc, c.framesLateDesc, c.frameTimeDesc, c.buildTimeDesc,
		c.snapsDesc, c.snapsSkippedDesc, c.snapBytesDesc, c.loadGameDesc, c.appliesDesc, c.bytesDesc, c.packetsDesc,
		c.lostDesc, c.resendsDesc, c.cmdsEarlyDesc, c.cmdsDupDesc, c.cmdsLateDesc, c.connectsDesc, c.refusedDesc,
		c.disconnectsDesc, c.timeoutsDesc, c.rejectedDesc, c.readerDropsDesc, c.lossDesc, c.rttDesc,
		c.reservationsDesc, c.resumesDesc, c.matchesDesc, c.matchClientsDesc, c.matchFramesDesc, c.matchSnapsDesc,
		c.matchSkippedDesc, c.matchBytesDesc} {
		ch <- d
	}
}

// lossBuckets and rttBuckets are the upper bounds of the per-client
// distributions.
var (
	lossBuckets = []float64{0, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5}
	rttBuckets  = []float64{0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1}
)

// Collect reads the server on its goroutine and sends the metrics.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	ok := c.src.DoHost(ctx, c.read)
	if !ok {
		ch <- prometheus.MustNewConstMetric(c.upDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(c.upDesc, prometheus.GaugeValue, 1)
	st, t := &c.stats, &c.totals
	counter := func(d *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
	}
	inGame := 0
	loss := make([]float64, 0, len(c.clients))
	rtt := make([]float64, 0, len(c.clients))
	for i := range c.clients {
		cl := &c.clients[i]
		if cl.InGame {
			inGame++
		}
		loss = append(loss, cl.Loss)
		if cl.RTT > 0 {
			rtt = append(rtt, cl.RTT.Seconds())
		}
	}
	ch <- prometheus.MustNewConstMetric(c.clientsDesc, prometheus.GaugeValue, float64(inGame), "in_game")
	ch <- prometheus.MustNewConstMetric(c.clientsDesc, prometheus.GaugeValue, float64(len(c.clients)-inGame), "loading")
	ch <- prometheus.MustNewConstMetric(c.clientsDesc, prometheus.GaugeValue, float64(st.Reserved), "reserved")
	counter(c.framesDesc, st.Frames)
	counter(c.framesLateDesc, st.FramesLate)
	ch <- durationHistogram(c.frameTimeDesc, &st.FrameTime)
	ch <- durationHistogram(c.buildTimeDesc, &st.SnapshotBuildTime)
	counter(c.snapsDesc, t.SnapshotsSent)
	counter(c.snapsSkippedDesc, t.SnapshotsSkipped)
	counter(c.snapBytesDesc, t.SnapshotBytes)
	counter(c.loadGameDesc, t.LoadGameSent)
	counter(c.appliesDesc, t.AcksApplied)
	counter(c.bytesDesc, t.BytesIn, "in")
	counter(c.bytesDesc, t.BytesOut, "out")
	counter(c.packetsDesc, t.PacketsIn, "in")
	counter(c.packetsDesc, t.PacketsOut, "out")
	counter(c.lostDesc, t.MessagesLostIn)
	counter(c.resendsDesc, t.ReliableResends)
	counter(c.cmdsEarlyDesc, t.CmdsEarly)
	counter(c.cmdsDupDesc, t.DuplicatedCmds)
	counter(c.cmdsLateDesc, t.LateCmds)
	counter(c.connectsDesc, st.Connects)
	counter(c.refusedDesc, st.Refused)
	counter(c.disconnectsDesc, st.Disconnects)
	counter(c.timeoutsDesc, st.Timeouts)
	counter(c.reservationsDesc, st.Reservations)
	counter(c.resumesDesc, st.Resumes)
	counter(c.rejectedDesc, st.BadPackets, "malformed")
	counter(c.rejectedDesc, st.AuthFailures, "unauthenticated")
	counter(c.rejectedDesc, st.UnknownConn, "unknown_connection")
	counter(c.rejectedDesc, st.WrongSource, "wrong_source")
	counter(c.rejectedDesc, st.BadCookies, "bad_cookie")
	counter(c.rejectedDesc, st.Throttled, "rate_limited")
	_, dropped := c.src.ReadStats()
	counter(c.readerDropsDesc, dropped)
	ch <- valueHistogram(c.lossDesc, loss, lossBuckets)
	ch <- valueHistogram(c.rttDesc, rtt, rttBuckets)
	ch <- prometheus.MustNewConstMetric(c.matchesDesc, prometheus.GaugeValue, float64(len(c.matches)))
	for i := range c.matches {
		m := &c.matches[i]
		ch <- prometheus.MustNewConstMetric(c.matchClientsDesc, prometheus.GaugeValue, float64(m.clients), m.name)
		counter(c.matchFramesDesc, m.frames, m.name)
		counter(c.matchSnapsDesc, m.totals.SnapshotsSent, m.name)
		counter(c.matchSkippedDesc, m.totals.SnapshotsSkipped, m.name)
		counter(c.matchBytesDesc, m.totals.BytesIn, m.name, "in")
		counter(c.matchBytesDesc, m.totals.BytesOut, m.name, "out")
	}
}

// read reads the host's matches on its goroutine: the process's totals
// (with the ended matches' when the source keeps them), every client, and
// each match's figures.
func (c *Collector) read(_ time.Duration, h *server.Host) {
	c.stats, c.totals = serverhook.Stats{}, server.Totals{}
	if e, ok := c.src.(EndedSource); ok {
		c.stats, c.totals = e.Ended()
		c.stats.Reserved = 0 // a gauge: the ended matches hold no slot
	}
	c.clients = c.clients[:0]
	c.matches = c.matches[:0]
	for _, name := range h.Matches() {
		s := h.Match(name)
		n := len(c.clients)
		c.clients = s.AppendClients(c.clients)
		st, t := serverhook.ServerStats(s), s.Totals()
		addStats(&c.stats, &st)
		addTotals(&c.totals, &t)
		c.matches = append(c.matches, matchFigures{name: name, clients: len(c.clients) - n, frames: st.Frames, totals: t})
	}
}

// durationHistogram converts the core's fixed-bucket histogram.
func durationHistogram(d *prometheus.Desc, h *serverhook.DurationHistogram) prometheus.Metric {
	buckets := make(map[float64]uint64, len(serverhook.DurationBuckets))
	var cum uint64
	for i, b := range serverhook.DurationBuckets {
		cum += h.Counts[i]
		buckets[b.Seconds()] = cum
	}
	return prometheus.MustNewConstHistogram(d, h.Count, h.Sum.Seconds(), buckets)
}

// valueHistogram is the distribution of vs over bounds.
func valueHistogram(d *prometheus.Desc, vs []float64, bounds []float64) prometheus.Metric {
	buckets := make(map[float64]uint64, len(bounds))
	sum := 0.0
	for _, b := range bounds {
		buckets[b] = 0
	}
	for _, v := range vs {
		sum += v
		for _, b := range bounds {
			if v <= b {
				buckets[b]++
			}
		}
	}
	return prometheus.MustNewConstHistogram(d, uint64(len(vs)), sum, buckets)
}
