package client_test

// Game messages both ways through netsim in virtual time (issue 24's
// acceptance: messages both ways under 20% loss, all delivered in order and
// none twice; a flood from one client leaves the others' snapshot rate
// unchanged), and the bounds: a flooding or oversized sender dropped, a
// slow receiver's queue refused, codecs that disagree ending the session.

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/server"
)

// chatMsg is a test message with a sequence number and text; its codec is
// written by hand (the field generator writes declared messages' codecs).
type chatMsg struct {
	Seq  uint32
	Text string
}

const chatMaxText = 600

func (m *chatMsg) WriteMessage(w *bitmsg.Writer) {
	w.WriteUint32(m.Seq)
	w.WriteString(m.Text, chatMaxText)
}

func (m *chatMsg) ReadMessage(r *bitmsg.Reader) {
	m.Seq = r.ReadUint32()
	m.Text = r.ReadString(chatMaxText)
}

// readyMsg is a second message type: a flag and a 3-bit team.
type readyMsg struct {
	Ready bool
	Team  uint8
}

func (m *readyMsg) WriteMessage(w *bitmsg.Writer) {
	w.WriteBool(m.Ready)
	w.WriteBits(uint32(m.Team), 3)
}

func (m *readyMsg) ReadMessage(r *bitmsg.Reader) {
	m.Ready = r.ReadBool()
	m.Team = uint8(r.ReadBits(3))
}

// chatExtraMsg is registered as "chat" by a peer whose codec writes one
// byte more than chatMsg reads; chatShortMsg one bit less.
type chatExtraMsg struct{ chatMsg }

func (m *chatExtraMsg) WriteMessage(w *bitmsg.Writer) { m.chatMsg.WriteMessage(w); w.WriteUint8(7) }

type chatShortMsg struct{ chatMsg }

func (m *chatShortMsg) WriteMessage(w *bitmsg.Writer) {
	w.WriteBits(m.Seq&0x7fffffff, 31)
	w.WriteString(m.Text, chatMaxText)
}

// registerMessages registers the test messages, with chat's Go type
// newChat, on reg.
func registerMessages(t testing.TB, reg *game.Registry, newChat func() game.Message) {
	t.Helper()
	if err := reg.RegisterMessage("chat", newChat); err != nil {
		t.Fatal(err)
	}
	if err := reg.RegisterMessage("ready", func() game.Message { return new(readyMsg) }); err != nil {
		t.Fatal(err)
	}
}

func newChat() game.Message { return new(chatMsg) }

// received is one game message as a receiver saw it.
type received struct {
	seq  uint32
	text string
}

type msgPeer struct {
	c   *client.Client
	ep  *netsim.Endpoint
	got []received
}

// msgNet is a server and clients of testgame on a netsim network, with the
// test messages registered on every end.
type msgNet struct {
	t     *testing.T
	net   *netsim.Network
	srv   *server.Server
	sep   *netsim.Endpoint
	cls   []*msgPeer
	nodes []netsim.Node
	now   time.Duration
	buf   []byte
	// fromClient holds what the server received, by client number;
	// onMessage, if set, sees each message after it is recorded.
	fromClient map[game.ClientNum][]received
	onMessage  func(from game.ClientNum, msg game.Message)
}

// newMsgNet starts a server with scfg and n clients; clientChat, if not
// nil, is the Go type the clients register as "chat", serverChat the
// server's.
func newMsgNet(t *testing.T, seed uint64, link netsim.LinkConfig, scfg server.Config, n int, serverChat, clientChat func() game.Message) *msgNet {
	t.Helper()
	if serverChat == nil {
		serverChat = newChat
	}
	if clientChat == nil {
		clientChat = newChat
	}
	m := &msgNet{t: t, net: netsim.New(seed), buf: make([]byte, 1<<16), fromClient: map[game.ClientNum][]received{}}
	m.net.SetDefault(link)
	var err error
	if m.sep, err = m.net.Listen(serverAddr); err != nil {
		t.Fatal(err)
	}
	sg := testgame.New()
	registerMessages(t, sg.Registry(), serverChat)
	serverhook.Edit(&scfg, func(h *serverhook.Hooks) { h.Seed = seed })
	scfg.OnMessage = func(from game.ClientNum, msg game.Message) {
		if c, ok := msg.(*chatMsg); ok {
			m.fromClient[from] = append(m.fromClient[from], received{c.Seq, c.Text})
		}
		if m.onMessage != nil {
			m.onMessage(from, msg)
		}
	}
	m.srv, err = server.New(scfg, sg, testgame.DefaultSettings, server.SendFunc(func(to netip.AddrPort, p []byte) {
		m.sep.WriteTo(p, to)
	}))
	if err != nil {
		t.Fatal(err)
	}
	m.nodes = []netsim.Node{{Endpoint: m.sep, Receive: m.srv.HandlePacket, Advance: m.srv.Advance, Next: m.srv.Next}}
	for range n {
		m.addClient(func(reg *game.Registry) { registerMessages(t, reg, clientChat) })
	}
	return m
}

// addClient connects a client whose registry register fills with
// message types.
func (m *msgNet) addClient(register func(*game.Registry)) *msgPeer {
	m.t.Helper()
	i := len(m.cls)
	p := &msgPeer{}
	var err error
	if p.ep, err = m.net.Listen(clientAddr(i)); err != nil {
		m.t.Fatal(err)
	}
	g := testgame.New()
	register(g.Registry())
	ccfg := client.Config{Name: fmt.Sprintf("c%d", i), OnMessage: func(msg game.Message) {
		if c, ok := msg.(*chatMsg); ok {
			p.got = append(p.got, received{c.Seq, c.Text})
		}
	}}
	input := client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{Forward: 40} })
	ep := p.ep
	if p.c, err = client.New(ccfg, g, input, client.SendFunc(func(to netip.AddrPort, b []byte) { ep.WriteTo(b, to) })); err != nil {
		m.t.Fatal(err)
	}
	p.c.Connect(m.now, serverAddr)
	c := p.c
	m.nodes = append(m.nodes, netsim.Node{Endpoint: p.ep,
		Receive: func(now time.Duration, _ netip.AddrPort, b []byte) { c.HandlePacket(now, b) },
		Advance: c.Advance, Next: c.Next})
	m.cls = append(m.cls, p)
	return p
}

func (m *msgNet) run(until time.Duration) { m.now = m.net.Run(m.now, until, m.nodes, m.buf) }

// connect runs until every client is connected.
func (m *msgNet) connect() {
	m.t.Helper()
	m.run(m.now + 2*time.Second)
	for i, p := range m.cls {
		if p.c.State() != client.Connected {
			m.t.Fatalf("client %d: %v, %v", i, p.c.State(), p.c.Err())
		}
	}
}

// checkSame reports the first difference between what was sent and what
// arrived, in order.
func checkSame(t *testing.T, who string, sent, got []received) {
	t.Helper()
	if len(got) != len(sent) {
		t.Errorf("%s: %d messages arrived, %d sent", who, len(got), len(sent))
	}
	for i := range min(len(got), len(sent)) {
		if got[i] != sent[i] {
			t.Errorf("%s: message %d is %+v, sent %+v (lost, reordered or twice)", who, i, got[i], sent[i])
			return
		}
	}
}

// Acceptance (issue 24): game messages both ways under 20% loss, 100 ms
// RTT: every client's to the server and the server's to each client and to
// all, all delivered, in the order sent, none twice.
func TestGameMessagesBothWaysLossy(t *testing.T) {
	link := netsim.LinkConfig{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.2}
	m := newMsgNet(t, 11, link, server.Config{}, 3, nil, nil)
	m.connect()
	toServer := make([][]received, len(m.cls))
	toClient := make([][]received, len(m.cls))
	for step := range 150 {
		for i, p := range m.cls {
			r := received{uint32(step + 1), fmt.Sprintf("client %d says %d", i, step)}
			if err := p.c.SendMessage(&chatMsg{Seq: r.seq, Text: r.text}); err != nil {
				t.Fatalf("client %d, message %d: %v", i, step, err)
			}
			toServer[i] = append(toServer[i], r)
			r = received{uint32(step + 1), fmt.Sprintf("server to %d: %d", i, step)}
			if err := m.srv.SendMessage(p.c.ClientNum(), &chatMsg{Seq: r.seq, Text: r.text}); err != nil {
				t.Fatalf("server to client %d, message %d: %v", i, step, err)
			}
			toClient[i] = append(toClient[i], r)
		}
		if step%3 == 0 {
			r := received{uint32(100000 + step), fmt.Sprintf("to all: %d", step)}
			if err := m.srv.BroadcastMessage(&chatMsg{Seq: r.seq, Text: r.text}); err != nil {
				t.Fatal(err)
			}
			for i := range m.cls {
				toClient[i] = append(toClient[i], r)
			}
		}
		if step%10 == 0 { // a second type in the same stream
			if err := m.cls[0].c.SendMessage(&readyMsg{Ready: true, Team: 5}); err != nil {
				t.Fatal(err)
			}
		}
		m.run(m.now + 100*time.Millisecond)
	}
	m.run(m.now + 5*time.Second)
	for i, p := range m.cls {
		if p.c.State() != client.Connected {
			t.Fatalf("client %d: %v, %v", i, p.c.State(), p.c.Err())
		}
		checkSame(t, fmt.Sprintf("client %d to server", i), toServer[i], m.fromClient[p.c.ClientNum()])
		checkSame(t, fmt.Sprintf("server to client %d", i), toClient[i], p.got)
		st, _ := serverhook.Client(m.srv, p.c.ClientNum())
		if st.Channel.ReliableResends == 0 {
			t.Errorf("client %d: no reliable message was resent: the loss did not touch them", i)
		}
	}
	if st, _ := serverhook.Client(m.srv, m.cls[0].c.ClientNum()); st.GameMessagesIn != 150+15 {
		t.Errorf("server handed %d of client 0's messages to the game, want 165 (150 chat, 15 ready)", st.GameMessagesIn)
	}
}

// floodRun connects four clients (2 s), then runs 6 s more, client 0
// flooding game messages all along when flood is set, and returns the
// snapshots the server sent each of the others and each of them received
// in those 6 s, with the server's log.
func floodRun(t *testing.T, flood bool) (sent, recv []uint64, m *msgNet, log string, droppedAfter time.Duration) {
	var logBuf bytes.Buffer
	scfg := server.Config{Logger: slog.New(slog.NewTextHandler(&logBuf, nil))}
	m = newMsgNet(t, 5, netsim.LinkConfig{Latency: 40 * time.Millisecond}, scfg, 4, nil, nil)
	m.connect()
	counts := func() (s, r []uint64) {
		for _, p := range m.cls[1:] {
			st, ok := m.srv.Client(p.c.ClientNum())
			if !ok {
				t.Fatalf("client %d gone from the server", p.c.ClientNum())
			}
			s = append(s, st.SnapshotsSent)
			r = append(r, p.c.Stats().SnapshotsReceived)
		}
		return s, r
	}
	s0, r0 := counts()
	text := strings.Repeat("spam", 100)
	start := m.now
	for m.now < 8*time.Second {
		for k := 0; flood && k < 50; k++ {
			if m.cls[0].c.SendMessage(&chatMsg{Seq: uint32(k), Text: text}) != nil {
				break // its queue is full, or it was dropped
			}
		}
		m.run(m.now + 10*time.Millisecond)
		if droppedAfter == 0 && m.cls[0].c.State() != client.Connected {
			droppedAfter = m.now - start
		}
	}
	s1, r1 := counts()
	for i := range s1 {
		sent = append(sent, s1[i]-s0[i])
		recv = append(recv, r1[i]-r0[i])
	}
	return sent, recv, m, logBuf.String(), droppedAfter
}

// Acceptance (issue 24): a client that floods game messages is dropped
// with a logged reason, and the other clients' snapshot rate, measured in
// virtual time, is what it is in the same run without the flood.
func TestGameMessageFloodDropsOnlyTheFlooder(t *testing.T) {
	calmSent, calmRecv, calm, _, _ := floodRun(t, false)
	sent, recv, m, log, droppedAfter := floodRun(t, true)
	if calm.cls[0].c.State() != client.Connected {
		t.Fatalf("without the flood client 0 is %v: %v", calm.cls[0].c.State(), calm.cls[0].c.Err())
	}
	var re *client.RefusedError
	if err := m.cls[0].c.Err(); !errors.As(err, &re) || re.Reason != client.ReasonMessageFlood {
		t.Errorf("flooder: state %v, err %v; want dropped with %q", m.cls[0].c.State(), err, client.ReasonMessageFlood)
	}
	if droppedAfter == 0 || droppedAfter > 500*time.Millisecond {
		t.Errorf("the flooder was told it is dropped %v after it began (40 ms each way)", droppedAfter)
	}
	if !strings.Contains(log, `msg="message flood"`) || !strings.Contains(log, `reason="too many or too large game messages"`) {
		t.Errorf("the server's log does not give the flood as the reason:\n%s", log)
	}
	for i := range sent {
		if sent[i] != calmSent[i] || recv[i] != calmRecv[i] {
			t.Errorf("client %d: %d snapshots sent, %d received in 6 s with the flood; %d and %d without",
				i+1, sent[i], recv[i], calmSent[i], calmRecv[i])
		}
		if calmSent[i] < 6*20-1 {
			t.Errorf("client %d: %d snapshots in 6 s at 20 Hz", i+1, calmSent[i])
		}
		if p := m.cls[i+1]; p.c.State() != client.Connected {
			t.Errorf("client %d: %v, %v", i+1, p.c.State(), p.c.Err())
		}
	}
	t.Logf("flooder dropped %v after it began; others' snapshots sent %v, received %v, in both runs", droppedAfter, sent, recv)
}

// A message larger than the server's Advanced.MaxGameMessageBytes drops
// its sender (ReasonMessageFlood); one within it arrives.
func TestGameMessageTooLargeDropsSender(t *testing.T) {
	var scfg server.Config
	scfg.MaxGameMessageBytes = 32
	m := newMsgNet(t, 3, netsim.LinkConfig{Latency: 10 * time.Millisecond}, scfg, 2, nil, nil)
	m.connect()
	if err := m.cls[1].c.SendMessage(&chatMsg{Seq: 1, Text: "short"}); err != nil {
		t.Fatal(err)
	}
	if err := m.cls[0].c.SendMessage(&chatMsg{Seq: 1, Text: strings.Repeat("x", 40)}); err != nil {
		t.Fatal(err)
	}
	m.run(m.now + time.Second)
	var re *client.RefusedError
	if err := m.cls[0].c.Err(); !errors.As(err, &re) || re.Reason != client.ReasonMessageFlood {
		t.Errorf("oversized sender: %v, %v", m.cls[0].c.State(), err)
	}
	if got := m.fromClient[m.cls[0].c.ClientNum()]; len(got) != 0 {
		t.Errorf("the oversized message reached the game: %v", got)
	}
	if got := m.fromClient[m.cls[1].c.ClientNum()]; len(got) != 1 || m.cls[1].c.State() != client.Connected {
		t.Errorf("the other client: %v, %v", got, m.cls[1].c.State())
	}
	if err := m.cls[0].c.SendMessage(&chatMsg{Seq: 2}); !errors.Is(err, client.ErrNotConnected) {
		t.Errorf("SendMessage after the drop: %v", err)
	}
}

// A client that does not acknowledge (its packets are lost) fills its
// queue on the server: SendMessage refuses further messages, the client
// stays, and once its link is back every message accepted arrives in order.
func TestGameMessageQueueBoundedForSlowClient(t *testing.T) {
	m := newMsgNet(t, 4, netsim.LinkConfig{Latency: 20 * time.Millisecond}, server.Config{}, 1, nil, nil)
	m.connect()
	p := m.cls[0]
	num := p.c.ClientNum()
	m.net.SetLink(clientAddr(0), serverAddr, netsim.LinkConfig{Loss: 1})
	var sent []received
	text := strings.Repeat("q", 500)
	var refused error
	for k := range 100 {
		r := received{uint32(k), text}
		if refused = m.srv.SendMessage(num, &chatMsg{Seq: r.seq, Text: r.text}); refused != nil {
			break
		}
		sent = append(sent, r)
		m.run(m.now + 20*time.Millisecond)
	}
	if refused == nil || len(sent) > 8192/500 || len(sent) < 8192/500-2 {
		t.Fatalf("%d messages of 500 bytes accepted before a refusal (%v); the queue holds 8 KiB", len(sent), refused)
	}
	if err := m.srv.BroadcastMessage(&chatMsg{Seq: 999, Text: text}); err == nil || !strings.Contains(err.Error(), "not acknowledged") {
		t.Errorf("BroadcastMessage to the full queue: %v", err)
	}
	if st, _ := serverhook.Client(m.srv, num); st.GameMessagesRefused != 2 || st.GameMessagesOut != uint64(len(sent)) {
		t.Errorf("counters: %d queued, %d refused", st.GameMessagesOut, st.GameMessagesRefused)
	}
	m.net.SetLink(clientAddr(0), serverAddr, netsim.LinkConfig{Latency: 20 * time.Millisecond})
	m.run(m.now + 2*time.Second)
	if p.c.State() != client.Connected {
		t.Fatalf("client: %v, %v", p.c.State(), p.c.Err())
	}
	checkSame(t, "server to the slow client", sent, p.got)
	if err := m.srv.SendMessage(num, &chatMsg{Seq: 1000, Text: text}); err != nil {
		t.Errorf("after the acknowledgements: %v", err)
	}
}

// A client whose "chat" writes more than the server's reads breaks the
// protocol: it is dropped, and the message does not reach the game.
func TestGameMessageServerRefusesUnreadBits(t *testing.T) {
	m := newMsgNet(t, 6, netsim.LinkConfig{Latency: 10 * time.Millisecond}, server.Config{}, 1, nil,
		func() game.Message { return new(chatExtraMsg) })
	m.connect()
	if err := m.cls[0].c.SendMessage(&chatExtraMsg{chatMsg{Seq: 1, Text: "hi"}}); err != nil {
		t.Fatal(err)
	}
	m.run(m.now + time.Second)
	var re *client.RefusedError
	if err := m.cls[0].c.Err(); !errors.As(err, &re) || re.Reason != client.ReasonProtocolError {
		t.Errorf("client: %v, %v; want dropped for a protocol error", m.cls[0].c.State(), err)
	}
	if len(m.fromClient) != 0 {
		t.Errorf("the message reached the game: %v", m.fromClient)
	}
}

// A server whose "chat" writes one bit less than the client's reads ends
// the session with an error that names the message type.
func TestGameMessageClientRefusesShortMessage(t *testing.T) {
	m := newMsgNet(t, 8, netsim.LinkConfig{Latency: 10 * time.Millisecond}, server.Config{}, 1,
		func() game.Message { return new(chatShortMsg) }, nil)
	m.connect()
	if err := m.srv.SendMessage(m.cls[0].c.ClientNum(), &chatShortMsg{chatMsg{Seq: 1, Text: "hi"}}); err != nil {
		t.Fatal(err)
	}
	m.run(m.now + time.Second)
	err := m.cls[0].c.Err()
	if m.cls[0].c.State() != client.Disconnected || !errors.Is(err, client.ErrProtocol) || !strings.Contains(err.Error(), `"chat"`) {
		t.Errorf("client: %v, %v; want a protocol error naming \"chat\"", m.cls[0].c.State(), err)
	}
	if len(m.cls[0].got) != 0 {
		t.Errorf("the message reached the game: %v", m.cls[0].got)
	}
	m.run(m.now + time.Second)
	if m.srv.NumClients() != 0 {
		t.Errorf("the server still has the client that left")
	}
}

// Sending a game message allocates nothing in steady state, on the server
// and on the client.
func TestGameMessageSendAllocs(t *testing.T) {
	m := newMsgNet(t, 9, netsim.LinkConfig{Latency: 10 * time.Millisecond}, server.Config{}, 1, nil, nil)
	m.connect()
	c := m.cls[0].c
	msg := &readyMsg{Ready: true, Team: 2}
	if a := testing.AllocsPerRun(100, func() {
		if err := m.srv.SendMessage(c.ClientNum(), msg); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("server SendMessage: %v allocations", a)
	}
	if a := testing.AllocsPerRun(100, func() {
		if err := c.SendMessage(msg); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("client SendMessage: %v allocations", a)
	}
}

// The message types are part of the registry hash: a client that
// registered other ones is refused at connect.
func TestGameMessageTypesInRegistryHash(t *testing.T) {
	m := newMsgNet(t, 10, netsim.LinkConfig{Latency: 10 * time.Millisecond}, server.Config{}, 0, nil, nil)
	p := m.addClient(func(reg *game.Registry) {
		if err := reg.RegisterMessage("chat", newChat); err != nil {
			t.Fatal(err)
		}
	})
	m.run(time.Second)
	var re *client.RefusedError
	if err := p.c.Err(); !errors.As(err, &re) || re.Reason != client.ReasonWrongRegistry {
		t.Errorf("client without \"ready\": %v, %v; want refused for its registry", p.c.State(), err)
	}
}

// A game may kick the sender from OnMessage: the messages after it in the
// same packet do not reach the game, and the others play on.
func TestGameMessageKickFromOnMessage(t *testing.T) {
	m := newMsgNet(t, 12, netsim.LinkConfig{Latency: 10 * time.Millisecond}, server.Config{}, 2, nil, nil)
	var got []uint32
	m.connect()
	bad := m.cls[0]
	m.onMessage = func(from game.ClientNum, msg game.Message) {
		c := msg.(*chatMsg)
		got = append(got, c.Seq)
		if c.Text == "kick me" {
			if err := m.srv.Kick(m.now, from); err != nil {
				t.Error(err)
			}
		}
	}
	for k, text := range []string{"hi", "kick me", "after"} {
		if err := bad.c.SendMessage(&chatMsg{Seq: uint32(k), Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	m.run(m.now + time.Second)
	if len(got) != 2 || got[1] != 1 {
		t.Errorf("the game got %v, want [0 1]: nothing after the kick", got)
	}
	var re *client.RefusedError
	if err := bad.c.Err(); !errors.As(err, &re) || re.Reason != client.ReasonKicked {
		t.Errorf("kicked client: %v, %v", bad.c.State(), err)
	}
	if m.cls[1].c.State() != client.Connected || m.srv.NumClients() != 1 {
		t.Errorf("the other client: %v; server has %d clients", m.cls[1].c.State(), m.srv.NumClients())
	}
}

// Steady state with game messages both ways (server, client and the
// simulated network together) allocates nothing: the inboxes are reused,
// and a message without strings decodes into its scratch message.
func TestGameMessageSteadyStateAllocs(t *testing.T) {
	m := newMsgNet(t, 13, netsim.LinkConfig{Latency: 20 * time.Millisecond, Loss: 0.1}, server.Config{}, 2, nil, nil)
	m.connect()
	msg := &readyMsg{Ready: true, Team: 1}
	step := func() {
		for _, p := range m.cls {
			if err := p.c.SendMessage(msg); err != nil {
				t.Fatal(err)
			}
		}
		if err := m.srv.BroadcastMessage(msg); err != nil {
			t.Fatal(err)
		}
		m.run(m.now + 100*time.Millisecond)
	}
	for range 30 {
		step() // buffers grow to their high
	}
	if a := testing.AllocsPerRun(30, step); a != 0 {
		t.Errorf("%v allocations per 100 ms with game messages both ways", a)
	}
	if st, _ := serverhook.Client(m.srv, m.cls[0].c.ClientNum()); st.GameMessagesIn < 60 {
		t.Errorf("the server got %d messages from client 0", st.GameMessagesIn)
	}
}

// Messages a link outage held back arrive together and count as a burst:
// a client sending at 10 a second through 5 s without a packet through
// (50 messages at once, more than 32 but within the default burst of 64)
// stays, and every message arrives in order.
func TestGameMessageOutageWithinBurst(t *testing.T) {
	m := newMsgNet(t, 14, netsim.LinkConfig{Latency: 30 * time.Millisecond}, server.Config{}, 1, nil, nil)
	m.connect()
	p := m.cls[0]
	var sent []received
	for k := range 70 {
		switch k {
		case 10:
			m.net.SetLink(clientAddr(0), serverAddr, netsim.LinkConfig{Loss: 1})
		case 60:
			m.net.SetLink(clientAddr(0), serverAddr, netsim.LinkConfig{Latency: 30 * time.Millisecond})
		}
		r := received{uint32(k), fmt.Sprint("line ", k)}
		if err := p.c.SendMessage(&chatMsg{Seq: r.seq, Text: r.text}); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, r)
		m.run(m.now + 100*time.Millisecond)
	}
	m.run(m.now + time.Second)
	if p.c.State() != client.Connected {
		t.Fatalf("client: %v, %v", p.c.State(), p.c.Err())
	}
	checkSame(t, "client to server across the outage", sent, m.fromClient[p.c.ClientNum()])
}

// Messages the server sends just before it kicks a client ride the same
// packets as the disconnect, and the client hands every one to the game
// before it reports the kick.
func TestGameMessagesBeforeKickArrive(t *testing.T) {
	m := newMsgNet(t, 15, netsim.LinkConfig{Latency: 10 * time.Millisecond}, server.Config{}, 1, nil, nil)
	m.connect()
	p := m.cls[0]
	var sent []received
	for k, text := range []string{"you", "are", "kicked"} {
		r := received{uint32(k), text}
		if err := m.srv.SendMessage(p.c.ClientNum(), &chatMsg{Seq: r.seq, Text: r.text}); err != nil {
			t.Fatal(err)
		}
		sent = append(sent, r)
	}
	if err := m.srv.Kick(m.now, p.c.ClientNum()); err != nil {
		t.Fatal(err)
	}
	m.run(m.now + time.Second)
	var re *client.RefusedError
	if err := p.c.Err(); !errors.As(err, &re) || re.Reason != client.ReasonKicked {
		t.Errorf("client: %v, %v", p.c.State(), err)
	}
	checkSame(t, "server to the kicked client", sent, p.got)
}

// Messages a client sends just before it leaves reach the server's game.
func TestGameMessagesBeforeLeavingArrive(t *testing.T) {
	m := newMsgNet(t, 16, netsim.LinkConfig{Latency: 10 * time.Millisecond}, server.Config{}, 1, nil, nil)
	m.connect()
	p := m.cls[0]
	num := p.c.ClientNum()
	sent := []received{{1, "bye"}, {2, "all"}}
	for _, r := range sent {
		if err := p.c.SendMessage(&chatMsg{Seq: r.seq, Text: r.text}); err != nil {
			t.Fatal(err)
		}
	}
	p.c.Disconnect(m.now)
	m.run(m.now + time.Second)
	if m.srv.NumClients() != 0 {
		t.Errorf("the server still has the client")
	}
	checkSame(t, "the leaving client to the server", sent, m.fromClient[num])
}
