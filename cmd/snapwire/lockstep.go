package main

// "snapwire lockstep": one peer of a DOOM (1994) style lockstep match of
// the arena over UDP (package lockstep), its own bot playing.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/lockstep"
	"github.com/snapwire/snapwire/internal/netaddr"
	"github.com/snapwire/snapwire/internal/refgame"
)

func init() {
	register(command{
		name:    "lockstep",
		summary: "play one peer of a peer-to-peer lockstep match (DOOM 1994) over UDP",
		run:     runLockstep,
	})
}

// lockstepSummary is the --json output.
type lockstepSummary struct {
	Peer          int     `json:"peer"`
	Peers         int     `json:"peers"`
	Frames        int64   `json:"frames"`
	Stalls        uint64  `json:"stalls"`
	MeanLagMS     float64 `json:"mean_lag_ms"`
	BytesOutPerS  float64 `json:"bytes_out_per_s"`
	BytesInPerS   float64 `json:"bytes_in_per_s"`
	HashesChecked uint64  `json:"hashes_checked"`
	// AuthFailures counts packets from a peer's (or the server's) address
	// that did not open with its key: forged or corrupted; Replayed,
	// genuine packets sent again. Both are dropped.
	AuthFailures uint64 `json:"auth_failures"`
	Replayed     uint64 `json:"replayed"`
	// Ended says why the match ended before --duration: a peer left.
	Ended string `json:"ended,omitempty"`
	Error string `json:"error,omitempty"`
}

func runLockstep(args []string, stdout io.Writer) error {
	fs := newFlagSet("lockstep")
	me := fs.Int("me", 0, "this peer's index in --peers")
	peersFlag := fs.String("peers", "", "comma-separated HOST:PORT of every peer, in the same order on every peer (this one's is where it listens)")
	duration := fs.Duration("duration", 20*time.Second, "how long to play")
	delay := fs.Int("input-delay", 4, "frames between sampling a command and running it")
	seed := fs.Uint64("seed", 1, "seed of this peer's bot")
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	relay := fs.String("relay", "", "play through the packet server at this HOST:PORT instead of peer to peer")
	serveRelay := fs.String("serve", "", "run the packet server on this HOST:PORT for the --peers (no game of its own)")
	keyFile := fs.String("key-file", "", "the match key file (snapwire token keygen), one per match, that whoever starts the match hands to every peer and the packet server: it authenticates every packet")
	insecure := fs.Bool("insecure", false, "play without authentication: anyone who can send from a peer's address can end the match or play for it (tests and trusted networks only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	key, err := lockstepKey(*keyFile, *insecure)
	if err != nil {
		return err
	}
	if *relay != "" && *serveRelay != "" {
		return errors.New("--relay and --serve exclude each other")
	}
	addrs, err := lockstepPeers(*peersFlag, *me)
	if err != nil {
		return err
	}
	if *serveRelay != "" {
		return runLockstepRelay(*serveRelay, addrs, lockstep.RelayConfig{Peers: len(addrs), InputDelay: *delay, Key: key, Insecure: *insecure},
			*duration, *asJSON, stdout)
	}
	var relayAddr netip.AddrPort
	if *relay != "" {
		var err error
		if relayAddr, err = netaddr.Resolve(*relay); err != nil {
			return fmt.Errorf("--relay: %w", err)
		}
	}
	mp, err := refgame.NewMap(refgame.Config{MaxPlayers: 16})
	if err != nil {
		return err
	}
	world := refgame.NewGame()
	if err := world.Load(mp.Config().String()); err != nil {
		return err
	}
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(addrs[*me]))
	if err != nil {
		return err
	}
	defer conn.Close()
	index := map[netip.AddrPort]int{}
	for i, a := range addrs {
		index[a] = i
	}
	bot := refgame.NewBot(*seed, game.ClientNum(*me), refgame.BotDeathmatch)
	if relayAddr.IsValid() {
		index[relayAddr] = len(addrs) // the server's packets
	}
	p, err := lockstep.New(lockstep.Config{Peers: len(addrs), Me: *me, InputDelay: *delay, ViaServer: relayAddr.IsValid(),
		Key: key, Insecure: *insecure}, world,
		func(f game.Frame) game.UserCmd { return bot.Command(world, f) },
		func(to int, pkt []byte) {
			if to == len(addrs) {
				conn.WriteToUDPAddrPort(pkt, relayAddr)
			} else {
				conn.WriteToUDPAddrPort(pkt, addrs[to])
			}
		})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *duration)
	defer cancel()
	start, err := playLockstep(ctx, conn, p, index)
	if err != nil {
		return err
	}
	if p.Err() == nil {
		p.Leave() // --duration is over or we were stopped: tell the others
	}
	s, err := lockstepResult(p, *me, addrs, relayAddr, time.Since(start))
	printLockstepSummary(stdout, s, *asJSON)
	return err
}

// lockstepKey reads the match key from keyFile, or returns the zero key
// with --insecure: one of the two is required, not both.
func lockstepKey(keyFile string, insecure bool) (lockstep.MatchKey, error) {
	var key lockstep.MatchKey
	if keyFile == "" && !insecure {
		return key, errors.New("secure by default: give --key-file KEYFILE, the same on every peer and the packet server " +
			"(make one per match with 'snapwire token keygen > KEYFILE'), or --insecure to play unauthenticated")
	}
	if keyFile != "" && insecure {
		return key, errors.New("--key-file and --insecure exclude each other")
	}
	if keyFile != "" {
		k, err := readKeyFile(keyFile)
		if err != nil {
			return key, fmt.Errorf("--key-file: %w", err)
		}
		key = lockstep.MatchKey(k)
	}
	return key, nil
}

// lockstepPeers resolves the --peers list and checks that it names 2 to
// lockstep.MaxPeers peers and that me is one of them.
func lockstepPeers(list string, me int) ([]netip.AddrPort, error) {
	var addrs []netip.AddrPort
	for _, s := range splitList(list) {
		ap, err := netaddr.Resolve(s)
		if err != nil {
			return nil, fmt.Errorf("--peers: %w", err)
		}
		addrs = append(addrs, ap)
	}
	if len(addrs) < 2 || len(addrs) > lockstep.MaxPeers || me < 0 || me >= len(addrs) {
		return nil, fmt.Errorf("--peers needs 2..%d addresses and --me an index among them", lockstep.MaxPeers)
	}
	return addrs, nil
}

// playLockstep feeds the packets conn receives from the addresses in index
// (peer index by address) to p and advances it until ctx ends or the match
// fails, and returns when the match clock started. The clock starts when
// the first packet of any peer arrives or after a second, so peers started
// a moment apart begin together. A read error other than the 1 ms timeout
// ends the match with that error.
func playLockstep(ctx context.Context, conn *net.UDPConn, p *lockstep.Peer, index map[netip.AddrPort]int) (time.Time, error) {
	start := time.Now()
	buf := make([]byte, 2048)
	started := false
	for ctx.Err() == nil && p.Err() == nil {
		conn.SetReadDeadline(time.Now().Add(time.Millisecond))
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		if err == nil {
			if i, ok := index[netip.AddrPortFrom(from.Addr().Unmap(), from.Port())]; ok {
				if !started {
					started, start = true, time.Now()
				}
				p.HandlePacket(i, buf[:n])
			}
		} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
			return start, err
		}
		if !started && time.Since(start) > time.Second {
			started, start = true, time.Now()
		}
		if started {
			p.Advance(time.Since(start))
		} else {
			p.Advance(0) // announce ourselves: packets carry no command yet
		}
	}
	return start, nil
}

// lockstepResult summarizes peer me's match of played time: its counters
// as rates, and why it ended. A peer that left ends the match without an
// error (Ended says who); any other failure of p is the error returned,
// and in Error.
func lockstepResult(p *lockstep.Peer, me int, addrs []netip.AddrPort, relayAddr netip.AddrPort, played time.Duration) (lockstepSummary, error) {
	st := p.Stats()
	secs := played.Seconds()
	s := lockstepSummary{Peer: me, Peers: len(addrs), Frames: int64(st.Frames), Stalls: st.Stalls,
		BytesOutPerS: float64(st.BytesOut) / secs, BytesInPerS: float64(st.BytesIn) / secs, HashesChecked: st.HashesChecked,
		AuthFailures: st.AuthFailures, Replayed: st.Replayed}
	if st.Frames > 0 {
		s.MeanLagMS = float64(st.Lag/time.Duration(st.Frames)) / 1e6
	}
	err := p.Err()
	var gone *lockstep.PeerGoneError
	if errors.As(err, &gone) {
		err = peerGone(gone, addrs, relayAddr)
		if gone.Left {
			s.Ended, err = err.Error(), nil // a peer quitting ends the match; not a failure
		}
	}
	if err != nil {
		s.Error = err.Error()
	}
	return s, err
}

// printLockstepSummary prints s as JSON or as a line of text (after the
// reason the match ended, if it did early).
func printLockstepSummary(stdout io.Writer, s lockstepSummary, asJSON bool) {
	if asJSON {
		json.NewEncoder(stdout).Encode(s)
		return
	}
	if s.Ended != "" {
		fmt.Fprintf(stdout, "match over: %s\n", s.Ended)
	}
	fmt.Fprintf(stdout, "peer %d of %d: %d frames, %d stalls, mean lag %.1f ms, %.0f bytes/s out, %.0f in, %d hashes checked, %d auth failures, %d replayed\n",
		s.Peer, s.Peers, s.Frames, s.Stalls, s.MeanLagMS, s.BytesOutPerS, s.BytesInPerS, s.HashesChecked, s.AuthFailures, s.Replayed)
}

// peerGone says which peer (or the packet server) left, with its address.
func peerGone(e *lockstep.PeerGoneError, addrs []netip.AddrPort, relay netip.AddrPort) error {
	who := fmt.Sprintf("the packet server (%s)", relay)
	if !e.Server && e.Peer >= 0 && e.Peer < len(addrs) {
		who = fmt.Sprintf("peer %d (%s)", e.Peer, addrs[e.Peer])
	}
	if e.Left {
		return fmt.Errorf("%s left the match", who)
	}
	return fmt.Errorf("%s sent nothing for %v: it left the match", who, e.Silence.Round(time.Millisecond))
}

// relaySummary is the --serve --json output.
type relaySummary struct {
	Peers        int      `json:"peers"`
	Decided      int64    `json:"frames_decided"`
	Duplicated   []uint64 `json:"duplicated_per_peer"`
	LateCmds     uint64   `json:"late_commands"`
	BytesOutPerS float64  `json:"bytes_out_per_s"`
	Hashes       uint64   `json:"hashes_checked"`
	AuthFailures uint64   `json:"auth_failures"`
	Replayed     uint64   `json:"replayed"`
	Error        string   `json:"error,omitempty"`
}

// runLockstepRelay runs the packet server on listen for the peers at
// addrs; its clock starts with the first peer packet.
func runLockstepRelay(listen string, addrs []netip.AddrPort, cfg lockstep.RelayConfig, duration time.Duration, asJSON bool, stdout io.Writer) error {
	la, err := netaddr.Resolve(listen)
	if err != nil {
		return fmt.Errorf("--serve: %w", err)
	}
	conn, err := net.ListenUDP("udp", net.UDPAddrFromAddrPort(la))
	if err != nil {
		return err
	}
	defer conn.Close()
	index := map[netip.AddrPort]int{}
	for i, a := range addrs {
		index[a] = i
	}
	r, err := lockstep.NewRelay(cfg,
		func(to int, pkt []byte) { conn.WriteToUDPAddrPort(pkt, addrs[to]) })
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, duration)
	defer cancel()
	buf := make([]byte, 2048)
	var start time.Time
	for ctx.Err() == nil {
		conn.SetReadDeadline(time.Now().Add(time.Millisecond))
		n, from, err := conn.ReadFromUDPAddrPort(buf)
		if err == nil {
			if i, ok := index[netip.AddrPortFrom(from.Addr().Unmap(), from.Port())]; ok {
				if start.IsZero() {
					start = time.Now()
				}
				r.HandlePacket(i, buf[:n])
			}
		} else if ne, ok := err.(net.Error); !ok || !ne.Timeout() {
			return err
		}
		if !start.IsZero() {
			r.Advance(time.Since(start))
		}
	}
	st := r.Stats()
	secs := max(time.Since(start).Seconds(), 1e-3)
	s := relaySummary{Peers: len(addrs), Decided: int64(st.Decided), Duplicated: st.Duplicated[:len(addrs)], LateCmds: st.LateCmds,
		BytesOutPerS: float64(st.BytesOut) / secs, Hashes: st.HashesChecked,
		AuthFailures: st.AuthFailures, Replayed: st.Replayed}
	if r.Err() != nil {
		s.Error = r.Err().Error()
	}
	if asJSON {
		return json.NewEncoder(stdout).Encode(s)
	}
	fmt.Fprintf(stdout, "packet server for %d peers: %d frames decided, duplicated %v, %d late commands, %.0f bytes/s out, %d hashes checked, %d auth failures, %d replayed\n",
		s.Peers, s.Decided, s.Duplicated, s.LateCmds, s.BytesOutPerS, s.Hashes, s.AuthFailures, s.Replayed)
	return r.Err()
}
