package client_test

import (
	"bytes"
	"errors"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
	"github.com/snapwire/snapwire/token"
)

// restartClient replaces sim client i by a new client.Client (a restarted
// process) with ccfg, on endpoint ep (its own, or a new address), with the
// checks addClient installs, and connects it (i = len(s.cls): a new one).
func (s *sim) restartClient(i int, ep *netsim.Endpoint, ccfg client.Config) *simClient {
	s.t.Helper()
	sc := &simClient{g: testgame.New(), ep: ep, mode: botLane, events: map[[3]int64]int{}}
	ccfg.Name = "bot"
	hooks := clienthook.Get(&ccfg)
	hooks.OnSnapshot = func(snap *snapshot.Snapshot) { s.checkStates(sc, snap.Header, &snap.PVS) }
	hooks.OnApply = func(seq snapshot.Seq, base *snapshot.CommonBase) {
		if hash, ok := s.applied[[2]uint64{uint64(sc.c.ClientNum()), uint64(seq)}]; ok {
			sc.baseChecks++
			if hash != base.Hash() {
				sc.baseMismatch++
			}
		}
	}
	clienthook.Set(&ccfg, hooks)
	var err error
	sc.c, err = client.New(ccfg, sc.g, botInput(sc, i), client.SendFunc(func(to netip.AddrPort, p []byte) { ep.WriteTo(p, to) }))
	if err != nil {
		s.t.Fatal(err)
	}
	sc.c.Connect(s.now, serverAddr)
	s.simNodes = nil // the cached nodes run the old client
	if i == len(s.cls) {
		s.cls = append(s.cls, sc)
	} else {
		s.cls[i] = sc
	}
	return sc
}

// cutLink drops every packet to and from addr while *cut holds (a netsim
// drop filter: Wi-Fi gone).
func cutLink(s *sim, addr netip.AddrPort, cut *bool) {
	s.net.SetDropFilter(func(from, to netip.AddrPort, _ []byte) bool {
		return *cut && (from == addr || to == addr)
	})
}

// playerAt returns client c's player entity on the server, encoded.
func playerAt(t *testing.T, s *sim, c game.ClientNum) (game.EntityNum, []byte, bool) {
	t.Helper()
	n, ok := s.sg.PlayerEntity(c)
	if !ok {
		return 0, nil, false
	}
	e, _ := s.sg.Entity(n)
	if e == nil {
		return n, nil, false
	}
	st, bits, err := s.codec.Save(e)
	if err != nil {
		t.Fatal(err)
	}
	return n, append([]byte(nil), st[:(bits+7)/8]...), true
}

// Acceptance (issue 25, reconnection): a client cut off for 10 s, longer
// than its session timeout, comes back with its token and resumes with the
// same client number and player entity, the entity as it was left (the game
// is told nothing: the player's state, its score, stays), and receives full
// snapshots from the map base with every invariant holding.
func TestResumeAfterCut(t *testing.T) {
	var s *sim
	s = newSim(t, 251, netsim.LinkConfig{Latency: 30 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.05}, secureConfig(&s))
	var cut bool
	cutLink(s, clientAddr(0), &cut)
	tok := issueToken(t, token.Params{ClientID: 7, Timeout: 4 * time.Second, Lifetime: time.Minute}, wallStart)
	s.addClient(0, botLane, client.Config{Token: tok})
	s.addClient(1, botLane, client.Config{Token: issueToken(t, token.Params{ClientID: 8}, wallStart)})
	s.run(3 * time.Second)
	num := s.cls[0].c.ClientNum()
	ent, _, ok := playerAt(t, s, num)
	if !ok || s.cls[0].c.State() != client.Connected {
		t.Fatalf("before the cut: player %v, client %v %v", ok, s.cls[0].c.State(), s.cls[0].c.Err())
	}
	cut = true
	s.run(3*time.Second + 4500*time.Millisecond) // past both ends' timeout
	if st := serverhook.ServerStats(s.srv); st.Reserved != 1 || st.Reservations != 1 || st.Timeouts != 0 {
		t.Fatalf("silent client: %d reserved, %d reservations, %d timeouts", st.Reserved, st.Reservations, st.Timeouts)
	}
	_, left, ok := playerAt(t, s, num)
	if !ok || s.srv.NumClients() != 1 {
		t.Fatalf("reserved slot: player %v, %d connected", ok, s.srv.NumClients())
	}
	if !errors.Is(s.cls[0].c.Err(), client.ErrTimeout) {
		t.Fatalf("cut client: %v", s.cls[0].c.Err())
	}
	// The game reconnects with its token while the link is still down,
	// and the handshake goes through once it is back (10 s after the cut).
	sc := s.restartClient(0, s.cls[0].ep, client.Config{Token: tok})
	s.run(3*time.Second + 10*time.Second)
	if sc.c.State() == client.Connected {
		t.Fatal("connected through a cut link")
	}
	_, still, ok := playerAt(t, s, num)
	if !ok || string(still) != string(left) {
		t.Fatalf("the reserved player changed while its client was away (present %v)", ok)
	}
	cut = false
	s.run(s.now + 8*time.Second)
	if sc.c.State() != client.Connected || sc.c.ClientNum() != num {
		t.Fatalf("resumed: %v %v, client %d (was %d)", sc.c.State(), sc.c.Err(), sc.c.ClientNum(), num)
	}
	if n, _, ok := playerAt(t, s, num); !ok || n != ent {
		t.Fatalf("player entity %d after the resume, was %d", n, ent)
	}
	st := serverhook.ServerStats(s.srv)
	if st.Resumes != 1 || st.Reserved != 0 || st.Connects != 2 || st.Disconnects != 0 || s.srv.NumClients() != 2 {
		t.Errorf("server: %d resumes, %d reserved, %d connects, %d disconnects, %d clients", st.Resumes, st.Reserved, st.Connects, st.Disconnects, s.srv.NumClients())
	}
	checkInvariants(t, s)
}

// Acceptance (issue 25): a client silent past the grace period loses its
// slot, and the game's ClientDisconnected runs then (its player entity is
// removed), not when it fell silent; its token resumes nothing afterwards.
func TestGraceExpires(t *testing.T) {
	var s *sim
	cfg := secureConfig(&s)
	cfg.ReconnectGrace = 5 * time.Second
	s = newSim(t, 252, netsim.LinkConfig{Latency: 20 * time.Millisecond}, cfg)
	var cut bool
	cutLink(s, clientAddr(0), &cut)
	tok := issueToken(t, token.Params{Timeout: 2 * time.Second, Lifetime: time.Minute}, wallStart)
	s.addClient(0, botLane, client.Config{Token: tok})
	s.run(2 * time.Second)
	cut = true
	s.run(2*time.Second + 2*time.Second + 500*time.Millisecond)
	if _, _, ok := playerAt(t, s, 0); !ok || serverhook.ServerStats(s.srv).Reserved != 1 {
		t.Fatalf("after the timeout: player present %v, %d reserved", ok, serverhook.ServerStats(s.srv).Reserved)
	}
	s.run(2*time.Second + 2*time.Second + 4500*time.Millisecond) // within the grace
	if _, _, ok := playerAt(t, s, 0); !ok {
		t.Fatal("player removed within the grace period")
	}
	s.run(2*time.Second + 2*time.Second + 5500*time.Millisecond) // past it
	st := serverhook.ServerStats(s.srv)
	if _, _, ok := playerAt(t, s, 0); ok || st.Reserved != 0 || st.Timeouts != 1 || st.Disconnects != 1 {
		t.Fatalf("after the grace: player present %v, %d reserved, %d timeouts, %d disconnects", ok, st.Reserved, st.Timeouts, st.Disconnects)
	}
	cut = false
	sc := s.restartClient(0, s.cls[0].ep, client.Config{Token: tok})
	s.run(s.now + 2*time.Second)
	var ref *client.RefusedError
	if !errors.As(sc.c.Err(), &ref) || ref.Reason != client.ReasonTokenReused {
		t.Errorf("token after the grace: %v %v", sc.c.State(), sc.c.Err())
	}
}

// Acceptance (issue 25): a resume with another client's credentials is
// refused and leaves the reserved slot to its owner. The credentials an
// observer can copy (the private token in a connect, a whole connect) do
// not resume: a connect with the token but a proof made with another key,
// and the owner's own first connect replayed from its address, are both
// refused as a reused token; another player's token takes a slot of its
// own. Then the owner resumes; its resume's connect, replayed once the
// session has fallen silent again, is refused too.
func TestResumeOtherCredentials(t *testing.T) {
	var s *sim
	s = newSim(t, 253, netsim.LinkConfig{Latency: 20 * time.Millisecond}, secureConfig(&s))
	var cut bool
	var firstConnect, lastConnect []byte
	owner := clientAddr(0)
	s.net.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool {
		if from == owner && !cut && netchan.IsConnectionless(p) {
			if k, _ := session.ConnectionlessKind(p[4:]); k == session.KindConnect {
				lastConnect = append([]byte(nil), p...) // what an on-path observer sees
				if firstConnect == nil {
					firstConnect = lastConnect
				}
			}
		}
		return cut && (from == owner || to == owner)
	})
	tok := issueToken(t, token.Params{ClientID: 1, Timeout: 2 * time.Second, Lifetime: time.Minute}, wallStart)
	s.addClient(0, botLane, client.Config{Token: tok})
	s.addClient(1, botLane, client.Config{Token: issueToken(t, token.Params{ClientID: 2}, wallStart)})
	s.run(2 * time.Second)
	cut = true
	s.run(5 * time.Second)
	if serverhook.ServerStats(s.srv).Reserved != 1 || firstConnect == nil {
		t.Fatalf("%d reserved, first connect seen %v", serverhook.ServerStats(s.srv).Reserved, firstConnect != nil)
	}
	refused := serverhook.ServerStats(s.srv).TokensRefused

	// The owner's private token (copied from its connect) with a key of
	// the thief's own: a wrong proof.
	stolen, err := token.Parse(tok.String())
	if err != nil {
		t.Fatal(err)
	}
	tokenwire.Of(stolen).ClientToServerKey[0] ^= 1
	thiefEP, err := s.net.Listen(netip.MustParseAddrPort("10.0.7.7:7777"))
	if err != nil {
		t.Fatal(err)
	}
	thief := s.restartClient(2, thiefEP, client.Config{Token: stolen})
	s.run(s.now + 2*time.Second)
	var ref *client.RefusedError
	if !errors.As(thief.c.Err(), &ref) || ref.Reason != client.ReasonTokenReused {
		t.Errorf("resume with a forged proof: %v %v", thief.c.State(), thief.c.Err())
	}
	// The owner's first connect replayed from its own address (its cookie
	// still valid): its nonce opened a session already.
	cut = false
	s.cls[0].ep.WriteTo(firstConnect, serverAddr)
	s.run(s.now + time.Second)
	st := serverhook.ServerStats(s.srv)
	if st.TokensRefused != refused+2 || st.Resumes != 0 || st.Reserved != 1 {
		t.Fatalf("after the forged resumes: %d token refusals (want %d), %d resumes, %d reserved", st.TokensRefused, refused+2, st.Resumes, st.Reserved)
	}
	sc := s.restartClient(0, s.cls[0].ep, client.Config{Token: tok})
	s.run(s.now + 3*time.Second)
	if sc.c.State() != client.Connected || sc.c.ClientNum() != 0 {
		t.Fatalf("owner's resume: %v %v client %d", sc.c.State(), sc.c.Err(), sc.c.ClientNum())
	}
	if st := serverhook.ServerStats(s.srv); st.Resumes != 1 || st.Reserved != 0 {
		t.Errorf("%d resumes, %d reserved", st.Resumes, st.Reserved)
	}
	// The resume's own connect, replayed from the owner's address after
	// its session fell silent again (its cookie still valid): its nonce
	// resumed once already.
	if bytes.Equal(lastConnect, firstConnect) {
		t.Fatal("the resume's connect was not seen")
	}
	cut = true
	s.run(s.now + 3*time.Second)
	refused = serverhook.ServerStats(s.srv).TokensRefused
	cut = false
	if !errors.Is(sc.c.Err(), client.ErrTimeout) {
		t.Fatalf("owner after the second cut: %v", sc.c.Err())
	}
	sc.ep.WriteTo(lastConnect, serverAddr)
	s.run(s.now + time.Second)
	if st := serverhook.ServerStats(s.srv); st.TokensRefused != refused+1 || st.Resumes != 1 || st.Reserved != 1 {
		t.Errorf("replayed resume: %d token refusals (want %d), %d resumes, %d reserved", st.TokensRefused, refused+1, st.Resumes, st.Reserved)
	}
}

// Acceptance (issue 25): a process restarted with the same token, from a
// new address while its old session still lives on the server, resumes its
// slot at once: a new nonce and the proof of the token's key take the slot
// from the old session (whose packets are then for no connection).
func TestResumeProcessRestart(t *testing.T) {
	var s *sim
	s = newSim(t, 254, netsim.LinkConfig{Latency: 25 * time.Millisecond, Loss: 0.05}, secureConfig(&s))
	tok := issueToken(t, token.Params{ClientID: 3, Lifetime: time.Minute}, wallStart)
	s.addClient(0, botLane, client.Config{Token: tok})
	s.addClient(1, botLane, client.Config{Token: issueToken(t, token.Params{ClientID: 4}, wallStart)})
	s.run(3 * time.Second)
	num := s.cls[0].c.ClientNum()
	ent, _, _ := playerAt(t, s, num)
	ep, err := s.net.Listen(netip.MustParseAddrPort("10.0.3.3:50001"))
	if err != nil {
		t.Fatal(err)
	}
	// The old process is gone: nothing runs it any more.
	sc := s.restartClient(0, ep, client.Config{Token: tok})
	s.run(12 * time.Second)
	if sc.c.State() != client.Connected || sc.c.ClientNum() != num {
		t.Fatalf("restarted: %v %v, client %d (was %d)", sc.c.State(), sc.c.Err(), sc.c.ClientNum(), num)
	}
	if n, _, ok := playerAt(t, s, num); !ok || n != ent {
		t.Fatalf("player entity %d (%v), was %d", n, ok, ent)
	}
	st := serverhook.ServerStats(s.srv)
	if st.Resumes != 1 || st.Reservations != 1 || st.Reserved != 0 || st.Disconnects != 0 || st.Timeouts != 0 {
		t.Errorf("server: %d resumes, %d reservations, %d reserved, %d disconnects, %d timeouts", st.Resumes, st.Reservations, st.Reserved, st.Disconnects, st.Timeouts)
	}
	if cs, _ := serverhook.Client(s.srv, num); cs.Addr != ep.Addr() {
		t.Errorf("slot %d at %v, want %v", num, cs.Addr, ep.Addr())
	}
	checkInvariants(t, s)
}

// A process restarted again and again with its token resumes each time,
// logged, up to resumeNonces (4) resumes in two cookie lifetimes: the
// nonces a valid cookie could still carry are all remembered, so the next
// is refused as transient (too many attempts); a restart resumes again once
// the oldest nonce's cookie has expired. Neither an insecure server nor one
// with ReconnectGrace < 0 holds a slot: a silent client is dropped at its
// timeout, as before.
func TestResumeLimitsAndLogs(t *testing.T) {
	var logs bytes.Buffer
	var s *sim
	cfg := secureConfig(&s)
	cfg.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	s = newSim(t, 255, netsim.LinkConfig{Latency: 10 * time.Millisecond}, cfg)
	tok := issueToken(t, token.Params{ClientID: 5, Lifetime: time.Hour}, wallStart)
	s.addClient(0, botLane, client.Config{Token: tok})
	s.run(time.Second)
	for i := 1; i <= 5; i++ {
		ep, err := s.net.Listen(netip.AddrPortFrom(netip.AddrFrom4([4]byte{10, 0, 5, byte(i)}), 5000))
		if err != nil {
			t.Fatal(err)
		}
		sc := s.restartClient(0, ep, client.Config{Token: tok})
		s.run(s.now + time.Second)
		st := serverhook.ServerStats(s.srv)
		switch {
		case i <= 4 && (sc.c.State() != client.Connected || st.Resumes != uint64(i)):
			t.Fatalf("restart %d: %v %v, %d resumes", i, sc.c.State(), sc.c.Err(), st.Resumes)
		case i == 5 && (sc.c.State() == client.Connected || st.Throttled == 0):
			t.Fatalf("restart 5 within two cookie lifetimes: %v, %d throttled", sc.c.State(), st.Throttled)
		}
	}
	// Once the oldest resume's cookie has expired (server bucket 2: the
	// four resumes were in bucket 0), a restart resumes again.
	s.run(21 * time.Second)
	ep, err := s.net.Listen(netip.MustParseAddrPort("10.0.5.6:5000"))
	if err != nil {
		t.Fatal(err)
	}
	sc := s.restartClient(0, ep, client.Config{Token: tok})
	s.run(s.now + time.Second)
	if sc.c.State() != client.Connected || sc.c.ClientNum() != 0 || serverhook.ServerStats(s.srv).Resumes != 5 {
		t.Fatalf("restart after the cookies expired: %v %v, %d resumes", sc.c.State(), sc.c.Err(), serverhook.ServerStats(s.srv).Resumes)
	}
	if n := strings.Count(logs.String(), `"msg":"resume"`); n != 5 {
		t.Errorf("%d resumes logged, want 5:\n%s", n, logs.String())
	}
	// A live session is replaced at once; only the fourth, whose process
	// the refused fifth replaced, fell silent and was reserved.
	if n := strings.Count(logs.String(), `"msg":"slot reserved"`); n != 1 {
		t.Errorf("%d reservations logged, want 1", n)
	}

	for _, c := range []struct {
		name string
		cfg  func(**sim) server.Config
		tok  *token.Token
	}{
		{"insecure", func(**sim) server.Config { return server.Config{Timeout: 2 * time.Second} }, nil},
		{"grace off", func(s **sim) server.Config {
			cfg := secureConfig(s)
			cfg.ReconnectGrace = -1
			return cfg
		}, issueToken(t, token.Params{Timeout: 2 * time.Second}, wallStart)},
	} {
		var s *sim
		s = newSim(t, 256, netsim.LinkConfig{Latency: 10 * time.Millisecond}, c.cfg(&s))
		var cut bool
		cutLink(s, clientAddr(0), &cut)
		s.addClient(0, botLane, client.Config{Token: c.tok})
		s.run(time.Second)
		cut = true
		s.run(3500 * time.Millisecond)
		st := serverhook.ServerStats(s.srv)
		if _, _, ok := playerAt(t, s, 0); ok || st.Reservations != 0 || st.Timeouts != 1 {
			t.Errorf("%s: player present %v, %d reservations, %d timeouts", c.name, ok, st.Reservations, st.Timeouts)
		}
	}
}

// A held slot goes through a map change (the game re-adds its player like
// every other, and the resumed client loads the new map and plays on), and
// a kick frees a held slot at once, the game told then.
func TestReservedSlotMapChangeAndKick(t *testing.T) {
	var s *sim
	s = newSim(t, 257, netsim.LinkConfig{Latency: 20 * time.Millisecond, Loss: 0.05}, secureConfig(&s))
	var cut bool
	cutLink(s, clientAddr(0), &cut)
	tok := issueToken(t, token.Params{Timeout: 2 * time.Second, Lifetime: time.Minute}, wallStart)
	s.addClient(0, botLane, client.Config{Token: tok})
	s.addClient(1, botLane, client.Config{Token: issueToken(t, token.Params{}, wallStart)})
	s.run(2 * time.Second)
	num := s.cls[0].c.ClientNum()
	cut = true
	s.run(5 * time.Second)
	if err := s.srv.ChangeMap("map=two,movers=3,doors=2,drones=1,period=61"); err != nil {
		t.Fatal(err)
	}
	s.run(6 * time.Second)
	cut = false
	sc := s.restartClient(0, s.cls[0].ep, client.Config{Token: tok})
	s.run(14 * time.Second)
	if sc.c.State() != client.Connected || sc.c.ClientNum() != num || sc.c.Settings() != s.srv.Settings() {
		t.Fatalf("resumed after a map change: %v %v, client %d (was %d), settings %q", sc.c.State(), sc.c.Err(), sc.c.ClientNum(), num, sc.c.Settings())
	}
	checkInvariants(t, s)

	cut = true
	s.run(17 * time.Second)
	if serverhook.ServerStats(s.srv).Reserved != 1 {
		t.Fatal("not reserved")
	}
	if err := s.srv.Kick(s.now, num); err != nil {
		t.Fatal(err)
	}
	st := serverhook.ServerStats(s.srv)
	if _, _, ok := playerAt(t, s, num); ok || st.Reserved != 0 || st.Disconnects != 1 {
		t.Errorf("kicked held slot: player present %v, %d reserved, %d disconnects", ok, st.Reserved, st.Disconnects)
	}
}

// A held slot counts against its address's MaxClientsPerIP, but for the
// resume that takes it: one host cannot hold more slots by letting its
// sessions fall silent.
func TestHeldSlotCountsPerIP(t *testing.T) {
	var s *sim
	cfg := secureConfig(&s)
	cfg.MaxClientsPerIP = 1
	s = newSim(t, 258, netsim.LinkConfig{Latency: 10 * time.Millisecond}, cfg)
	var cut bool
	cutLink(s, clientAddr(0), &cut)
	tok := issueToken(t, token.Params{Timeout: 2 * time.Second, Lifetime: time.Minute}, wallStart)
	s.addClient(0, botLane, client.Config{Token: tok})
	s.run(time.Second)
	cut = true
	s.run(4 * time.Second)
	if serverhook.ServerStats(s.srv).Reserved != 1 {
		t.Fatal("not reserved")
	}
	// Another player from the same IP address (another port): refused
	// while the slot is held (transient, so it retries).
	ep, err := s.net.Listen(netip.AddrPortFrom(clientAddr(0).Addr(), 41000))
	if err != nil {
		t.Fatal(err)
	}
	other := s.restartClient(1, ep, client.Config{Token: issueToken(t, token.Params{}, wallStart)})
	s.run(6 * time.Second)
	if other.c.State() == client.Connected || serverhook.ServerStats(s.srv).Throttled == 0 {
		t.Fatalf("a second client from a held slot's address: %v, %d throttled", other.c.State(), serverhook.ServerStats(s.srv).Throttled)
	}
	other.c.Disconnect(s.now)
	// The holder resumes from its address's other port.
	ep2, err := s.net.Listen(netip.AddrPortFrom(clientAddr(0).Addr(), 42000))
	if err != nil {
		t.Fatal(err)
	}
	sc := s.restartClient(0, ep2, client.Config{Token: tok})
	s.run(8 * time.Second)
	if sc.c.State() != client.Connected || serverhook.ServerStats(s.srv).Resumes != 1 {
		t.Fatalf("resume from the held slot's address: %v %v", sc.c.State(), sc.c.Err())
	}
}
