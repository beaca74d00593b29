package server

import (
	"bytes"
	"fmt"
	"net/netip"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/internal/tokenwire"
	"github.com/snapwire/snapwire/internal/usercmd"
	"github.com/snapwire/snapwire/token"
)

type sent struct {
	to  netip.AddrPort
	pkt []byte
}

type rec struct{ out []sent }

func (r *rec) Send(to netip.AddrPort, p []byte) {
	r.out = append(r.out, sent{to, bytes.Clone(p)})
}

func (r *rec) take() []sent { o := r.out; r.out = nil; return o }

func newTest(t testing.TB, cfg Config) (*Server, *rec) {
	t.Helper()
	r := &rec{}
	s, err := New(cfg, testgame.New(), testgame.DefaultSettings, r)
	if err != nil {
		t.Fatal(err)
	}
	return s, r
}

func oob(p []byte) []byte { return netchan.AppendConnectionless(nil, p) }

// handshake runs getchallenge and connect from addr and returns the last
// answer's payload.
func handshake(t testing.TB, s *Server, r *rec, now time.Duration, addr netip.AddrPort, m session.Connect) []byte {
	t.Helper()
	s.HandlePacket(now, addr, oob(session.GetChallenge{Nonce: m.Nonce}.Append(nil)))
	out := r.take()
	if len(out) != 1 {
		t.Fatalf("%d answers to getchallenge", len(out))
	}
	ch, err := session.ParseChallenge(out[0].pkt[4:])
	if err != nil || ch.Nonce != m.Nonce {
		t.Fatalf("challenge: %v", err)
	}
	if len(out[0].pkt) > session.GetChallengeLen+4 {
		t.Errorf("challenge of %d bytes amplifies a %d-byte request", len(out[0].pkt), session.GetChallengeLen+4)
	}
	m.Cookie = ch.Cookie
	s.HandlePacket(now, addr, oob(m.Append(nil)))
	out = r.take()
	if len(out) != 1 {
		t.Fatalf("%d answers to connect", len(out))
	}
	return out[0].pkt[4:]
}

func goodConnect(nonce uint64) session.Connect {
	return session.Connect{Nonce: nonce, Version: session.Version, RegistryHash: testgame.NewRegistry().Hash(), Name: "x"}
}

func addr(i int) netip.AddrPort {
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte{192, 0, 2, byte(i)}), uint16(1000+i))
}

func TestRefusals(t *testing.T) {
	s, r := newTest(t, Config{MaxClients: 1, Password: "pw"})
	cases := []struct {
		name string
		mod  func(*session.Connect)
		want session.Reason
	}{
		{"wrong version", func(m *session.Connect) { m.Version = 99; m.Password = "pw" }, session.ReasonWrongVersion},
		{"wrong registry", func(m *session.Connect) { m.RegistryHash++; m.Password = "pw" }, session.ReasonWrongRegistry},
		{"wrong password", func(m *session.Connect) { m.Password = "nope" }, session.ReasonWrongPassword},
	}
	for i, tc := range cases {
		m := goodConnect(uint64(i + 1))
		tc.mod(&m)
		ans := handshake(t, s, r, 0, addr(i), m)
		ref, err := session.ParseRefuse(ans)
		if err != nil || ref.Reason != tc.want {
			t.Errorf("%s: got %v %v, want %v", tc.name, ref.Reason, err, tc.want)
		}
	}
	m := goodConnect(10)
	m.Password = "pw"
	if _, err := session.ParseAccept(handshake(t, s, r, 0, addr(10), m)); err != nil {
		t.Fatalf("good connect: %v", err)
	}
	m = goodConnect(11)
	m.Password = "pw"
	if ref, _ := session.ParseRefuse(handshake(t, s, r, 0, addr(11), m)); ref.Reason != session.ReasonServerFull {
		t.Errorf("second client: %v, want server full", ref.Reason)
	}
	// A cookie for another address, and an expired one.
	s.HandlePacket(0, addr(12), oob(session.GetChallenge{Nonce: 12}.Append(nil)))
	ch, _ := session.ParseChallenge(r.take()[0].pkt[4:])
	m = goodConnect(12)
	m.Password, m.Cookie = "pw", ch.Cookie
	s.HandlePacket(0, addr(13), oob(m.Append(nil)))
	s.HandlePacket(25*time.Second, addr(12), oob(m.Append(nil)))
	refusals := 0
	for _, o := range r.take() {
		if !netchan.IsConnectionless(o.pkt) {
			continue // snapshots to the connected client
		}
		refusals++
		if ref, _ := session.ParseRefuse(o.pkt[4:]); ref.Reason != session.ReasonBadCookie {
			t.Errorf("stolen or expired cookie: %v", ref.Reason)
		}
	}
	if refusals != 2 {
		t.Errorf("%d refusals for a stolen and an expired cookie", refusals)
	}
	if s.NumClients() != 1 {
		t.Errorf("%d clients", s.NumClients())
	}
}

// Acceptance: connect attempts from spoofed addresses leave no per-address
// state on the server.
func TestSpoofedConnectsLeaveNoState(t *testing.T) {
	s, r := newTest(t, Config{})
	var cookie session.Cookie
	for i := range 5000 {
		from := netip.AddrPortFrom(netip.AddrFrom4([4]byte{198, 51, byte(i >> 8), byte(i)}), uint16(i))
		s.HandlePacket(time.Duration(i)*time.Millisecond, from, oob(session.GetChallenge{Nonce: uint64(i)}.Append(nil)))
		m := goodConnect(uint64(i))
		cookie[0] = byte(i)
		m.Cookie = cookie // the spoofer never sees the challenge
		s.HandlePacket(time.Duration(i)*time.Millisecond, from, oob(m.Append(nil)))
		// An unpadded getchallenge is ignored (no amplification).
		s.HandlePacket(0, from, oob(session.GetChallenge{Nonce: 1}.Append(nil)[:11]))
	}
	r.take()
	if s.NumClients() != 0 || len(s.byID) != 0 {
		t.Fatalf("state after spoofed connects: %d clients, %d ids", s.NumClients(), len(s.byID))
	}
	for _, c := range s.slots {
		if c != nil {
			t.Fatal("a slot was taken")
		}
	}
	if st := s.fullStats(); st.BadCookies != 5000 || st.Connects != 0 {
		t.Errorf("stats %+v", st)
	}
}

// connected returns a server with one client connected through the
// handshake, and the client's channel.
func connected(t testing.TB, cfg Config) (*Server, *rec, *netchan.Channel, session.Accept) {
	t.Helper()
	s, r := newTest(t, cfg)
	acc, err := session.ParseAccept(handshake(t, s, r, 0, addr(1), goodConnect(1)))
	if err != nil {
		t.Fatal(err)
	}
	return s, r, netchan.New(netchan.Config{}, acc.ConnID), acc
}

func cmdMsg(id game.GameID, ack uint32, f game.Frame) []byte {
	w := bitmsg.NewWriter(make([]byte, 256))
	w.WriteUint32(uint32(id))
	w.WriteUint32(ack)
	m := usercmd.Message{Cmds: []game.UserCmd{{Frame: f, Forward: 10}}}
	m.Append(w, game.UserCmd{})
	return bytes.Clone(w.Bytes())
}

type sink struct{ typs []netchan.MessageType }

func (s *sink) Reliable([]byte) {}
func (s *sink) Unreliable(t netchan.MessageType, m []byte) {
	s.typs = append(s.typs, t)
}

func TestTimeoutAndDisconnect(t *testing.T) {
	s, _, _, _ := connected(t, Config{Timeout: 2 * time.Second})
	s.Advance(1900 * time.Millisecond)
	if s.NumClients() != 1 {
		t.Fatal("dropped early")
	}
	s.Advance(2100 * time.Millisecond)
	if s.NumClients() != 0 || s.fullStats().Timeouts != 1 {
		t.Fatalf("not dropped after the timeout: %d clients", s.NumClients())
	}
	// Clean disconnect: a reliable disconnect message.
	s, _, ch, acc := connected(t, Config{})
	ch.QueueReliable(session.Disconnect{Reason: session.ReasonClientLeft}.Append(nil))
	ch.Send(0, session.TypeIdle, (session.ClientHeader{GameID: acc.GameID}).Append(nil), func(p []byte) {
		s.HandlePacket(10*time.Millisecond, addr(1), p)
	})
	if s.NumClients() != 0 {
		t.Fatal("client not removed after its disconnect message")
	}
}

// A client whose messages carry another game id is sent "load game" until
// it answers with the right one (DOOM III §3.1).
func TestWrongGameGetsLoadGame(t *testing.T) {
	s, r, ch, acc := connected(t, Config{})
	var got sink
	now := time.Duration(0)
	for i := range 30 {
		now = time.Duration(i) * 17 * time.Millisecond
		ch.Send(now, session.TypeCommands, cmdMsg(acc.GameID+1, 0, game.Frame(i+1)), func(p []byte) { s.HandlePacket(now, addr(1), p) })
		s.Advance(now)
		for _, o := range r.take() {
			ch.Receive(now, o.pkt, &got)
		}
	}
	loads := 0
	for _, typ := range got.typs {
		if typ == session.TypeLoadGame {
			loads++
		} else {
			t.Fatalf("message type %d sent to a client in the wrong game", typ)
		}
	}
	if loads == 0 {
		t.Fatal("no load game message")
	}
	got.typs = nil
	for i := 30; i < 40; i++ {
		now = time.Duration(i) * 17 * time.Millisecond
		ch.Send(now, session.TypeCommands, cmdMsg(acc.GameID, 0, s.Frame()+2), func(p []byte) { s.HandlePacket(now, addr(1), p) })
		s.Advance(now)
		for _, o := range r.take() {
			ch.Receive(now, o.pkt, &got)
		}
	}
	if len(got.typs) == 0 || got.typs[len(got.typs)-1] != session.TypeSnapshot {
		t.Fatalf("no snapshots after answering with the right game: %v", got.typs)
	}
}

func FuzzHandlePacket(f *testing.F) {
	f.Add(oob(session.GetChallenge{Nonce: 1}.Append(nil)))
	f.Add(oob(goodConnect(1).Append(nil)))
	f.Add(oob(session.Connect{Nonce: 2, Version: session.Version, Name: "x", Match: "duel-17"}.Append(nil)))
	f.Add([]byte{0, 1, 0, 0, 1, 0, 0, 0})
	s0, _, ch, acc := connected(f, Config{})
	_ = s0
	ch.Send(0, session.TypeCommands, cmdMsg(acc.GameID, 3, 5), func(p []byte) { f.Add(bytes.Clone(p)) })
	f.Fuzz(func(t *testing.T, pkt []byte) {
		s, r, _, acc2 := connected(t, Config{})
		if acc2.ConnID != acc.ConnID {
			t.Skip()
		}
		s.HandlePacket(time.Millisecond, addr(1), pkt)
		s.HandlePacket(time.Millisecond, addr(2), pkt)
		s.Advance(100 * time.Millisecond)
		for _, o := range r.take() {
			if len(o.pkt) > 1500 {
				t.Fatalf("sent %d bytes", len(o.pkt))
			}
		}
	})
}

// Connectionless packets that are not snapwire handshake messages go to
// serverhook.Hooks.OnConnectionless (Quake 3 text queries); handshake kinds never
// do, and a text "getchallenge" is not taken for a snapwire one.
func TestOnConnectionless(t *testing.T) {
	var got []string
	var s *Server
	s, r := newTest(t, serverhook.With(Config{}, serverhook.Hooks{OnConnectionless: func(now time.Duration, from netip.AddrPort, p []byte, reply func([]byte)) {
		got = append(got, string(p))
		if from != addr(7) || now != 5*time.Millisecond {
			t.Errorf("query from %v at %v", from, now)
		}
		if string(p) == "getinfo xxx" {
			reply([]byte("infoResponse\n\\challenge\\xxx\\clients\\" + string(rune('0'+s.NumClients()))))
		}
	}}))
	for _, q := range []string{"getinfo xxx", "getstatus yy", "getchallenge 123", "\x7f"} {
		s.HandlePacket(5*time.Millisecond, addr(7), oob([]byte(q)))
	}
	s.HandlePacket(5*time.Millisecond, addr(7), oob(nil))               // empty: ignored
	s.HandlePacket(5*time.Millisecond, addr(7), oob([]byte{0x1F, 'g'})) // reserved kind: ignored
	if want := []string{"getinfo xxx", "getstatus yy", "getchallenge 123", "\x7f"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("hook saw %q, want %q", got, want)
	}
	out := r.take()
	if len(out) != 1 || out[0].to != addr(7) || string(out[0].pkt) != "\xff\xff\xff\xffinfoResponse\n\\challenge\\xxx\\clients\\0" {
		t.Fatalf("replies %v", out)
	}
	if st := s.fullStats(); st.Queries != 4 || st.Challenges != 0 {
		t.Errorf("stats %+v", st)
	}
	// The handshake still works and never reaches the hook.
	got = nil
	if _, err := session.ParseAccept(handshake(t, s, r, 5*time.Millisecond, addr(8), goodConnect(1))); err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("handshake messages passed to the hook: %q", got)
	}
	// Without a hook, text queries are ignored.
	s2, r2 := newTest(t, Config{})
	s2.HandlePacket(0, addr(7), oob([]byte("getinfo xxx")))
	if out := r2.take(); len(out) != 0 {
		t.Errorf("answered without a hook: %v", out)
	}
}

// Acceptance: no handshake reply is larger than the request it answers, so
// the server cannot amplify a spoofed sender's traffic (the padding rule of
// session.GetChallengeLen and session.ConnectLen). Every handshake kind is sent
// at every length from 1 byte to one past ConnectLen (truncated prefixes of
// real requests, or the kind byte and zeros), and the handshakes that end
// in a challenge, an accept, a repeated accept and each refusal are run on
// an insecure and a secure server.
//
// Guards against (tried): session.ParseGetChallenge accepting an unpadded
// 11-byte getchallenge (len(p) < 11 instead of len(p) != GetChallengeLen)
// makes this test fail (a 15-byte request, prefix included, gets a 29-byte
// challenge); so does session.ParseConnect accepting an unpadded connect
// (len(p) < 10 instead of len(p) != ConnectLen: accepts larger than the
// short requests).
func TestNoReplyLargerThanRequest(t *testing.T) {
	key := token.Key{1: 1}
	srvAddr := netip.MustParseAddrPort("192.0.2.200:27960")
	replies := map[session.Kind]int{}
	// send hands payload to s from `from` and checks every answer.
	send := func(t *testing.T, s *Server, r *rec, now time.Duration, from netip.AddrPort, payload []byte) []byte {
		t.Helper()
		req := oob(payload)
		s.HandlePacket(now, from, req)
		var last []byte
		for _, o := range r.take() {
			if !netchan.IsConnectionless(o.pkt) {
				continue // a connected client's channel traffic
			}
			k, _ := session.ConnectionlessKind(o.pkt[4:])
			replies[k]++
			if len(o.pkt) > len(req) {
				kin, _ := session.ConnectionlessKind(payload)
				t.Errorf("a %d-byte request of kind %d got a %d-byte reply of kind %d", len(req), kin, len(o.pkt), k)
			}
			last = o.pkt[4:]
		}
		return last
	}
	for _, secure := range []bool{false, true} {
		t.Run(fmt.Sprintf("secure=%v", secure), func(t *testing.T) {
			cfg := Config{MaxClients: 2, Password: "pw", PublicAddrs: []netip.AddrPort{srvAddr}}
			if secure {
				cfg.TokenKey, cfg.ProtocolID = &key, 7
			}
			s, r := newTest(t, cfg)
			cookie := func(from netip.AddrPort) session.Cookie {
				ch, err := session.ParseChallenge(send(t, s, r, 0, from, session.GetChallenge{Nonce: 1}.Append(nil)))
				if err != nil {
					t.Fatalf("challenge: %v", err)
				}
				return ch.Cookie
			}
			// connect fills in a connect for from: cookie, password, a
			// token on the secure server, and a name of nameLen bytes.
			connect := func(from netip.AddrPort, m session.Connect, nameLen int) session.Connect {
				m.Cookie, m.Password = cookie(from), "pw"
				if secure {
					tok, err := token.Issue(key, token.Params{ProtocolID: 7, Servers: []netip.AddrPort{srvAddr},
						UserData: bytes.Repeat([]byte{'u'}, token.MaxUserData)}, time.Now())
					if err != nil {
						t.Fatal(err)
					}
					m.Token = tokenwire.Of(tok).AppendPrivate(nil)
				}
				m.Name = string(bytes.Repeat([]byte{'n'}, nameLen))
				return m
			}
			// Every length of every kind: prefixes of real requests (a
			// connect with the shortest fields, whose accept would be
			// larger than an unpadded request), or the kind byte and zeros.
			probe := addr(60)
			templates := map[session.Kind][]byte{
				session.KindGetChallenge: session.GetChallenge{Nonce: 2}.Append(nil),
				session.KindConnect:      connect(probe, goodConnect(3), 0).Append(nil),
			}
			for k := session.Kind(0); k <= session.MaxHandshakeKind; k++ {
				tpl := templates[k]
				if tpl == nil {
					tpl = []byte{byte(k)}
				}
				for n := 1; n <= session.ConnectLen+1; n++ {
					p := make([]byte, n)
					copy(p, tpl)
					send(t, s, r, 0, probe, p)
				}
			}
			if s.NumClients() != 1 {
				t.Errorf("%d clients after the probes, want 1", s.NumClients())
			}
			from := addr(50)
			// Whole handshakes: accept, repeated accept, each refusal.
			good := connect(from, goodConnect(10), 255)
			if err := anyAccept(send(t, s, r, 0, from, good.Append(nil))); err != nil {
				t.Fatalf("accept: %v", err)
			}
			if err := anyAccept(send(t, s, r, 0, from, good.Append(nil))); err != nil {
				t.Fatalf("repeated accept: %v", err)
			}
			bad := []func(*session.Connect){
				func(m *session.Connect) { m.Version++ },
				func(m *session.Connect) { m.RegistryHash++ },
				func(m *session.Connect) { m.Password = "no" },
				func(m *session.Connect) { m.Cookie[0]++ },
				func(m *session.Connect) { m.Token = bytes.Repeat([]byte{1}, 200) },
				func(m *session.Connect) { m.Token = nil },
			}
			for i, mod := range bad {
				m := connect(addr(70+i), goodConnect(uint64(20+i)), 255)
				mod(&m)
				send(t, s, r, 0, from, m.Append(nil))
			}
			// Full: the server has its two clients; a third is refused.
			send(t, s, r, 0, addr(80), connect(addr(80), goodConnect(30), 255).Append(nil))
			if s.NumClients() != 2 {
				t.Errorf("%d clients, want 2", s.NumClients())
			}
		})
	}
	// The test shows something only if every kind of answer was checked.
	for _, k := range []session.Kind{session.KindChallenge, session.KindAccept, session.KindRefuse} {
		if replies[k] < 2 {
			t.Errorf("%d replies of kind %d checked", replies[k], k)
		}
	}
	t.Logf("replies checked by kind: %v", replies)
}
