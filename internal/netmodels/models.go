// Package netmodels runs the same arena match under four network models
// and measures them side by side (the models command):
// DOOM (1994) peer-to-peer lockstep and its packet-server variant
// (package lockstep; DOOM III network architecture, van Waveren 2006,
// §1.1), Quake 3's client-server with interpolated opponents, and DOOM
// III's prediction of every entity (§2), over the same simulated links
// (netsim, virtual time), with bots whose decisions come from the same
// random seeds.
package netmodels

import (
	"fmt"
	"net/netip"
	"slices"
	"strings"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/lockstep"
	"github.com/snapwire/snapwire/internal/matchsim"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/report"
	"github.com/snapwire/snapwire/netsim"
)

// Options choose the matrix.
type Options struct {
	Players  []int           // [2 4 8 16]
	RTTs     []time.Duration // [50 100 200 ms]
	Duration time.Duration   // game per match [20s]
	Loss     float64         // per direction [0.02]
	Seed     uint64          // [1]
	// SlowPeer adds the variant where one player's link has 3x the round
	// trip of the others.
	SlowPeer bool
	// CoarseSteps are the step lengths, in frames, of DOOM III §8's
	// re-prediction in larger steps, each measured against frame by frame
	// at the player counts of at least 8 and round trips of at least
	// 100 ms (RunCoarse); none: not measured.
	CoarseSteps []int
}

// Quick is the matrix CI runs.
func Quick() Options {
	return Options{Players: []int{2, 8}, RTTs: []time.Duration{50 * time.Millisecond, 200 * time.Millisecond}, Duration: 8 * time.Second, Loss: 0.02, Seed: 1, SlowPeer: true,
		CoarseSteps: []int{2}}
}

// Full is the documented matrix.
func Full() Options {
	return Options{Players: []int{2, 4, 8, 16}, RTTs: []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond},
		Duration: 20 * time.Second, Loss: 0.02, Seed: 1, SlowPeer: true, CoarseSteps: []int{2, 4}}
}

// Row is one match's figures.
type Row struct {
	Model   string `json:"model"` // lockstep, packet-server, quake3, doom3
	Players int    `json:"players"`
	RTTMS   int    `json:"rtt_ms"`
	Slow    bool   `json:"slow_peer"` // one player at 3x the round trip
	// Bytes per player per second, up (sent) and down (received), UDP
	// payload; for the packet server and client-server models the server's
	// own traffic is not a player's.
	BytesUpPerS   float64 `json:"bytes_up_per_s"`
	BytesDownPerS float64 `json:"bytes_down_per_s"`
	// InputLatencyFrames: frames from sampling a player's command to the
	// frame that shows its effect on that player's screen (the lockstep
	// input delay plus the mean wait for the slowest command; 0 where the
	// own player is predicted).
	InputLatencyFrames float64 `json:"input_latency_frames"`
	// Aim error (client-server models): where a client shows each opponent
	// against where the server has it when it runs that frame, world units.
	AimErrorMean float64 `json:"aim_error_mean"`
	AimErrorP99  float64 `json:"aim_error_p99"`
	// StallFrames: frames the first player waited for a command (lockstep).
	StallFrames float64 `json:"stall_frames"`
	Desyncs     int     `json:"desyncs"`
	// Hitscan shots (client-server models; internal/matchsim's Options.Shots):
	// every frame each client fires at every opponent it shows in sight,
	// aimed exactly at where it shows it; the share that hit that opponent
	// on the server without lag compensation (HitShare), with it
	// (HitShareLagComp: the server rewinds the players to the client's
	// view time, DOOM III §1.1) and with it plus the paper's present
	// line-of-sight test (HitShareLagCompLOS); and the hits on a victim
	// behind a wall in its own view (the paper's tree example) each way.
	Shots                 int64   `json:"shots,omitempty"`
	HitShare              float64 `json:"hit_share"`
	HitShareLagComp       float64 `json:"hit_share_lag_compensation"`
	HitShareLagCompLOS    float64 `json:"hit_share_lag_compensation_los"`
	BehindCover           int64   `json:"behind_cover"`
	BehindCoverLagComp    int64   `json:"behind_cover_lag_compensation"`
	BehindCoverLagCompLOS int64   `json:"behind_cover_lag_compensation_los"`
	RewindMeanFrames      float64 `json:"rewind_mean_frames,omitempty"`
}

// Run runs the matrix.
func Run(o Options) ([]Row, error) {
	var rows []Row
	for _, n := range o.Players {
		for _, rtt := range o.RTTs {
			slows := []bool{false}
			if o.SlowPeer {
				slows = append(slows, true)
			}
			for _, slow := range slows {
				for _, via := range []bool{false, true} {
					rows = append(rows, runLockstep(o, n, rtt, slow, via))
				}
				if slow {
					continue // the client-server models take no per-player links here
				}
				for _, interp := range []bool{true, false} {
					r, err := runClientServer(o, n, rtt, interp)
					if err != nil {
						return nil, err
					}
					rows = append(rows, r)
				}
			}
		}
	}
	return rows, nil
}

func runClientServer(o Options, n int, rtt time.Duration, interp bool) (Row, error) {
	opt := matchsim.DefaultOptions()
	opt.Clients, opt.Latency, opt.Jitter, opt.Loss, opt.Duration, opt.Seed = n, rtt, 0, o.Loss, o.Duration, o.Seed
	opt.Warmup = min(2*time.Second, o.Duration/4)
	opt.InterpolateOpponents = interp
	opt.Shots = true
	res, err := matchsim.Run(opt)
	if err != nil {
		return Row{}, fmt.Errorf("netmodels: %d players, %v: %w", n, rtt, err)
	}
	r := Row{Model: "doom3", Players: n, RTTMS: int(rtt / time.Millisecond),
		BytesUpPerS: res.KbpsUpPerClientMean * 1000 / 8, BytesDownPerS: res.KbpsPerClientMean * 1000 / 8,
		AimErrorMean: res.PredErrorOthersMean, AimErrorP99: res.PredErrorOthersP99}
	if interp {
		r.Model = "quake3"
	}
	if s := res.Shots; s != nil {
		r.Shots, r.RewindMeanFrames = s.Shots, s.RewindMeanFrames
		r.HitShare, r.HitShareLagComp, r.HitShareLagCompLOS = s.HitShare(), s.HitShareLagComp(), s.HitShareLagCompLOS()
		r.BehindCover, r.BehindCoverLagComp, r.BehindCoverLagCompLOS = s.BehindCover, s.BehindCoverLagComp, s.BehindCoverLagCompLOS
	}
	if res.BaseMismatches != 0 || res.StateMismatches != 0 {
		r.Desyncs = int(res.BaseMismatches + res.StateMismatches)
	}
	return r, nil
}

func peerAddr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 1, 0, byte(i + 1)}), 26000)
}

var relayAddr = netip.MustParseAddrPort("10.1.0.200:26000")

// matchKey authenticates the lockstep matches' packets, as a real match's
// would (their bytes include the header and tag).
var matchKey = lockstep.MatchKey{1}

func runLockstep(o Options, n int, rtt time.Duration, slow, via bool) Row {
	net := netsim.New(o.Seed)
	net.SetDefault(netsim.LinkConfig{Latency: rtt / 2, Loss: o.Loss})
	mp, _ := refgame.NewMap(refgame.Config{MaxPlayers: 16, Seed: o.Seed})
	settings := mp.Config().String()
	var relay *lockstep.Relay
	var relEP *netsim.Endpoint
	if via {
		relEP, _ = net.Listen(relayAddr)
		relay, _ = lockstep.NewRelay(lockstep.RelayConfig{Peers: n, Key: matchKey}, func(to int, p []byte) { relEP.WriteTo(p, peerAddr(to)) })
	}
	if slow {
		far := netsim.LinkConfig{Latency: 3 * rtt / 2, Loss: o.Loss}
		others := []netip.AddrPort{relayAddr}
		for i := range n - 1 {
			others = append(others, peerAddr(i))
		}
		for _, a := range others {
			net.SetLink(peerAddr(n-1), a, far)
			net.SetLink(a, peerAddr(n-1), far)
		}
	}
	peers := make([]*lockstep.Peer, n)
	eps := make([]*netsim.Endpoint, n)
	for i := range n {
		w := refgame.NewGame()
		w.Load(settings)
		ep, _ := net.Listen(peerAddr(i))
		bot := refgame.NewBot(o.Seed*1000+uint64(i), game.ClientNum(i), refgame.BotDeathmatch)
		p, err := lockstep.New(lockstep.Config{Peers: n, Me: i, ViaServer: via, Key: matchKey}, w,
			func(f game.Frame) game.UserCmd { return bot.Command(w, f) },
			func(to int, pkt []byte) {
				if to == n {
					ep.WriteTo(pkt, relayAddr)
				} else {
					ep.WriteTo(pkt, peerAddr(to))
				}
			})
		if err != nil {
			panic(err) // n is within 2..16 by construction
		}
		peers[i], eps[i] = p, ep
	}
	buf := make([]byte, 2048)
	for now := time.Duration(0); now < o.Duration; now += time.Millisecond {
		net.AdvanceTo(now)
		if relay != nil {
			for k, from, ok := relEP.ReadFrom(buf); ok; k, from, ok = relEP.ReadFrom(buf) {
				relay.HandlePacket(int(from.Addr().As4()[3])-1, buf[:k])
			}
			relay.Advance(now)
		}
		for i, ep := range eps {
			for k, from, ok := ep.ReadFrom(buf); ok; k, from, ok = ep.ReadFrom(buf) {
				src := int(from.Addr().As4()[3]) - 1
				if from == relayAddr {
					src = n
				}
				peers[i].HandlePacket(src, buf[:k])
			}
			peers[i].Advance(now)
		}
	}
	r := Row{Model: "lockstep", Players: n, RTTMS: int(rtt / time.Millisecond), Slow: slow}
	if via {
		r.Model = "packet-server"
	}
	secs := o.Duration.Seconds()
	var up, down float64
	for _, p := range peers {
		st := p.Stats()
		up += float64(st.BytesOut) / secs
		down += float64(st.BytesIn) / secs
		if p.Err() != nil {
			r.Desyncs++
		}
	}
	r.BytesUpPerS, r.BytesDownPerS = up/float64(n), down/float64(n)
	if relay != nil && relay.Err() != nil {
		r.Desyncs++
	}
	st := peers[0].Stats()
	frame := (time.Second / 60).Seconds()
	if st.Frames > 0 {
		lag := (st.Lag / time.Duration(st.Frames)).Seconds() / frame
		r.InputLatencyFrames = 4 + lag // lockstep.Config's default input delay
		r.StallFrames = st.Lag.Seconds() / frame
	}
	return r
}

// find returns the row of model at n players and rtt (not the slow variant).
func find(rows []Row, model string, n, rtt int, slow bool) (Row, bool) {
	for _, r := range rows {
		if r.Model == model && r.Players == n && r.RTTMS == rtt && r.Slow == slow {
			return r, true
		}
	}
	return Row{}, false
}

// Claim is one of the paper's claims with whether the rows bear it out.
type Claim struct {
	Text    string
	Holds   bool
	Figures string
}

func (c Claim) String() string {
	verdict := "borne out"
	if !c.Holds {
		verdict = "NOT borne out"
	}
	return fmt.Sprintf("%s: %s (%s)", c.Text, verdict, c.Figures)
}

// Claims checks the paper's claims on the rows: lockstep's bytes grow with
// the players, its pace is set by the slowest connection while the packet
// server keeps it for the others, and with every entity predicted a player
// leads targets less.
func Claims(rows []Row) []Claim {
	var out []Claim
	minN, maxN, rtt := 0, 0, 0
	for _, r := range rows {
		if r.Model == "lockstep" && !r.Slow {
			if minN == 0 || r.Players < minN {
				minN = r.Players
			}
			maxN = max(maxN, r.Players)
			if rtt == 0 || r.RTTMS > rtt {
				rtt = r.RTTMS
			}
		}
	}
	if a, ok := find(rows, "lockstep", minN, rtt, false); ok {
		if b, ok := find(rows, "lockstep", maxN, rtt, false); ok && minN < maxN {
			grow := b.BytesUpPerS / a.BytesUpPerS
			out = append(out, Claim{"lockstep's bandwidth grows with the players (each sends to every other)",
				grow > float64(maxN-1)/float64(minN-1)*0.7,
				fmt.Sprintf("%.0f B/s up per player at %d players, %.0f at %d: %.1fx for %dx the other players", a.BytesUpPerS, minN, b.BytesUpPerS, maxN, grow, (maxN-1)/(minN-1))})
		}
		if s, ok := find(rows, "lockstep", minN, rtt, true); ok {
			out = append(out, Claim{"lockstep's playability is set by the slowest connection",
				s.InputLatencyFrames > a.InputLatencyFrames+2,
				fmt.Sprintf("input latency %.1f frames, %.1f with one player at 3x the round trip", a.InputLatencyFrames, s.InputLatencyFrames)})
			if p, ok := find(rows, "packet-server", minN, rtt, true); ok {
				out = append(out, Claim{"a packet server keeps the others' pace when one peer is slow (duplicating its last command)",
					p.InputLatencyFrames < s.InputLatencyFrames-2,
					fmt.Sprintf("a fast player's input latency %.1f frames through the server, %.1f peer to peer", p.InputLatencyFrames, s.InputLatencyFrames)})
			}
		}
	}
	holds, figs := true, ""
	for _, r := range rows {
		if r.Model != "doom3" {
			continue
		}
		q, ok := find(rows, "quake3", r.Players, r.RTTMS, false)
		if !ok {
			continue
		}
		holds = holds && r.AimErrorMean < q.AimErrorMean
		figs += fmt.Sprintf("%d players %d ms: %.1f vs %.1f; ", r.Players, r.RTTMS, r.AimErrorMean, q.AimErrorMean)
	}
	if figs != "" {
		out = append(out, Claim{"with every entity predicted the player does not need to lead targets (as far)", holds,
			"mean aim error DOOM III vs Quake 3, " + figs[:len(figs)-2]})
	}
	return append(out, lagClaims(rows)...)
}

// shotTotals sums the hitscan figures of a model's rows at one round trip
// (every player count), the shares weighted by their shots.
type shotTotals struct {
	shots                      int64
	hit, lc, lcLOS             float64 // shares
	cover, coverLC, coverLCLOS int64
	rtt                        int
}

func totals(rows []Row, model string, rtt int) shotTotals {
	t := shotTotals{rtt: rtt}
	var hit, lc, los float64
	for _, r := range rows {
		if r.Model != model || r.RTTMS != rtt || r.Slow {
			continue
		}
		t.shots += r.Shots
		hit += r.HitShare * float64(r.Shots)
		lc += r.HitShareLagComp * float64(r.Shots)
		los += r.HitShareLagCompLOS * float64(r.Shots)
		t.cover += r.BehindCover
		t.coverLC += r.BehindCoverLagComp
		t.coverLCLOS += r.BehindCoverLagCompLOS
	}
	if t.shots > 0 {
		n := float64(t.shots)
		t.hit, t.lc, t.lcLOS = hit/n, lc/n, los/n
	}
	return t
}

// lagClaims checks the paper's claims about lag compensation (DOOM III
// §1.1) and prediction's aim (§2) on the hitscan figures, at each round
// trip of the rows.
func lagClaims(rows []Row) []Claim {
	var rtts []int
	for _, r := range rows {
		if r.Model == "quake3" && r.Shots > 0 && !slices.Contains(rtts, r.RTTMS) {
			rtts = append(rtts, r.RTTMS)
		}
	}
	slices.Sort(rtts)
	if len(rtts) == 0 {
		return nil
	}
	var q, d []shotTotals
	for _, rtt := range rtts {
		q = append(q, totals(rows, "quake3", rtt))
		d = append(d, totals(rows, "doom3", rtt))
	}
	var out []Claim
	// §1.1: without lag compensation a Quake 3 player must lead targets;
	// with it, shots at what the screen shows hit.
	holds, figs := true, ""
	for _, t := range q {
		holds = holds && t.lc > t.hit+0.25
		figs += fmt.Sprintf("%d ms: %s without, %s with; ", t.rtt, report.Pct(t.hit, 0), report.Pct(t.lc, 0))
	}
	out = append(out, Claim{"lag compensation lets a player with interpolated opponents hit where they are shown (Half-Life, §1.1)", holds,
		"Quake 3 hit share of shots aimed at the opponent on screen, " + strings.TrimSuffix(figs, "; ")})
	// §1.1: with lag compensation a player is shot after reaching cover.
	var cover, coverLC, coverLOS int64
	for _, t := range q {
		cover, coverLC, coverLOS = cover+t.cover, coverLC+t.coverLC, coverLOS+t.coverLCLOS
	}
	out = append(out, Claim{"with lag compensation a player can be hit after moving behind cover in their own view (the tree example)",
		coverLC > 0 && cover == 0,
		fmt.Sprintf("Quake 3 hits on a victim behind a wall in its own view: %d with lag compensation, %d without", coverLC, cover)})
	out = append(out, Claim{"the extra line-of-sight test in the present makes such hits rarer",
		coverLOS < coverLC,
		fmt.Sprintf("%d behind-cover hits with the test, %d without it; hit share %s with it, %s without (at %d ms)",
			coverLOS, coverLC, report.Pct(q[len(q)-1].lcLOS, 0), report.Pct(q[len(q)-1].lc, 0), q[len(q)-1].rtt)})
	// §2: predicted opponents are shown closer to where the server has
	// them, so aiming at the screen hits more often than with Quake 3's
	// interpolation, without rewinding anything.
	holds, figs = true, ""
	for i := range q {
		holds = holds && d[i].shots > 0 && d[i].hit > q[i].hit
		figs += fmt.Sprintf("%d ms: %s vs %s; ", q[i].rtt, report.Pct(d[i].hit, 0), report.Pct(q[i].hit, 0))
	}
	out = append(out, Claim{"with every entity predicted, shots aimed at the screen hit without lag compensation (§2)", holds,
		"hit share without lag compensation, DOOM III vs Quake 3, " + strings.TrimSuffix(figs, "; ")})
	return out
}
