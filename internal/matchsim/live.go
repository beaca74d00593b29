package matchsim

import (
	"fmt"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/netsim"
)

// Live is a match a person plays ("snapwire play"): the demo's server and
// Options.Clients bots over the link simulator, plus one more client, the
// player's, whose commands come from the caller's InputSource. The caller
// owns the clock: Step moves the match to the time it is given (the wall
// clock since the start in "snapwire play", virtual time in tests), on the
// caller's goroutine. The harness's invariant checks run for every client;
// the per-second series of Run are not kept, so a match may last for
// hours.
type Live struct {
	h  *harness
	me *bot
}

// LiveChecks are the player's client's figures and invariant checks.
type LiveChecks struct {
	Snapshots       uint64 // snapshots received
	BaseChecks      uint64 // common-base hash comparisons (the client's live ones and the harness's)
	BaseMismatches  uint64 // must be 0
	StateChecks     uint64 // entity states compared with the server's at snapshots
	StateMismatches uint64 // must be 0
}

// NewLive starts a live match: opt.Clients bots (1..63) playing opt.Mode,
// and the player's client, named name, fed by input. opt.Duration and
// opt.Warmup are ignored; the link between the player and the server
// starts as opt's (SetLink changes it).
func NewLive(opt Options, name string, input client.InputSource) (*Live, error) {
	opt.Duration, opt.Warmup, opt.Progress = time.Hour, 0, nil
	if err := opt.validate(); err != nil {
		return nil, err
	}
	if opt.Clients > 63 {
		return nil, fmt.Errorf("%w: %d bots and a player (at most 64 clients)", ErrOptions, opt.Clients)
	}
	if input == nil {
		return nil, fmt.Errorf("%w: no input for the player", ErrOptions)
	}
	h, err := newHarness(opt, 1)
	if err != nil {
		return nil, err
	}
	h.warm = true
	h.live = true // the compression figures are Run's: a live frame does not pay for them
	me, err := h.addClient(opt.Clients, name, opt.Mode, input)
	if err != nil {
		return nil, err
	}
	return &Live{h: h, me: me}, nil
}

// Step plays the match up to now (never backwards).
func (l *Live) Step(now time.Duration) {
	h := l.h
	h.run(now)
	// Only the cumulative figures are kept.
	h.secSelf, h.secOthers, h.secLead = h.secSelf[:0], h.secOthers[:0], h.secLead[:0]
	h.allSelf, h.allOthers = h.allSelf[:0], h.allOthers[:0]
}

// Now is the time the match has been stepped to.
func (l *Live) Now() time.Duration { return l.h.now }

// Client is the player's client.
func (l *Live) Client() *client.Client { return l.me.c }

// World is the player's client's world: the entities it predicts.
func (l *Live) World() *refgame.World { return l.me.w }

// Server is the server's world, the authoritative one: where the player
// really is (a ghost to draw next to the prediction).
func (l *Live) Server() *refgame.World { return l.h.sg }

// ServerFrame is the last frame the server ran.
func (l *Live) ServerFrame() game.Frame { return l.h.srv.Frame() }

// SetLink sets both directions of the link between the player and the
// server (the latency is one way); the bots keep theirs.
func (l *Live) SetLink(cfg netsim.LinkConfig) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	l.h.net.SetLink(l.me.ep.Addr(), serverAddr, cfg)
	l.h.net.SetLink(serverAddr, l.me.ep.Addr(), cfg)
	return nil
}

// Checks returns the player's client's invariant checks.
func (l *Live) Checks() LiveChecks {
	b := l.me
	st := clienthook.CountersOf(b.c)
	return LiveChecks{Snapshots: st.SnapshotsReceived,
		BaseChecks: st.BaseChecks + b.baseChecks, BaseMismatches: st.BaseMismatches + b.baseMismatches,
		StateChecks: b.stateChecks, StateMismatches: b.stateMismatches}
}

// BotChecks sums the bots' invariant checks.
func (l *Live) BotChecks() LiveChecks {
	var c LiveChecks
	for _, b := range l.h.bots {
		if b == l.me {
			continue
		}
		st := clienthook.CountersOf(b.c)
		c.Snapshots += st.SnapshotsReceived
		c.BaseChecks += st.BaseChecks + b.baseChecks
		c.BaseMismatches += st.BaseMismatches + b.baseMismatches
		c.StateChecks += b.stateChecks
		c.StateMismatches += b.stateMismatches
	}
	return c
}
