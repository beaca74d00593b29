package rtc

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pion/webrtc/v4"

	"github.com/snapwire/snapwire/internal/transport"
)

// Config configures a Server.
type Config struct {
	// Inject hands the server core a packet from a peer (the Inject of the
	// runner it is attached to, transport.Host): it must copy pkt and not
	// block. Required.
	Inject func(from netip.AddrPort, pkt []byte) bool
	// HostIPs restricts the server's ICE candidates to these addresses
	// (host candidates; loopback allowed). Empty: every interface but
	// loopback (pion's default).
	HostIPs []netip.Addr
	// MaxPeers bounds the peers, connecting or connected [16]; an offer
	// beyond it is refused with 503.
	MaxPeers int
	// MaxPeersPerIP bounds the peers whose offers came from one IP address
	// (ServeHTTP, the request's remote address) [4]: a stranger cannot take
	// every slot by posting offers it never connects.
	MaxPeersPerIP int
	// MaxHalfOpenPerIP bounds the peers from one IP address whose channel
	// is not open yet [2]: offers never followed by ICE (half-open peers)
	// hold a slot each until ConnectTimeout, so a few addresses could
	// otherwise keep every slot taken.
	MaxHalfOpenPerIP int
	// ConnectTimeout closes a peer whose data channel is not open this
	// long after its offer was answered [5s]; a browser's ICE, DTLS and
	// SCTP handshakes take a few round trips.
	ConnectTimeout time.Duration
	// MaxOffer bounds the offer's size in bytes [16 KiB]; a browser's
	// offer with its candidates is 1–3 KB.
	MaxOffer int64
	// MaxBuffered is the most a peer's channel may hold unsent (bytes);
	// a send beyond it is dropped, as a full socket buffer drops a
	// datagram [256 KiB].
	MaxBuffered uint64
	// Logger gets one event per peer opened, refused and closed; nil logs
	// nothing.
	Logger *slog.Logger
}

func (c *Config) defaults() {
	if c.MaxPeers <= 0 {
		c.MaxPeers = 16
	}
	if c.MaxPeersPerIP <= 0 {
		c.MaxPeersPerIP = 4
	}
	if c.MaxHalfOpenPerIP <= 0 {
		c.MaxHalfOpenPerIP = 2
	}
	if c.ConnectTimeout <= 0 {
		c.ConnectTimeout = 5 * time.Second
	}
	if c.MaxOffer <= 0 {
		c.MaxOffer = 16 << 10
	}
	if c.MaxBuffered == 0 {
		c.MaxBuffered = 256 << 10
	}
}

// Stats are a Server's counters.
type Stats struct {
	Offers     uint64 // offers answered
	Refused    uint64 // offers refused: too many peers, too large, malformed
	Opened     uint64 // peers whose channel opened
	TimedOut   uint64 // peers closed because their channel did not open in time
	Closed     uint64 // peers closed for any reason
	Peers      int    // peers now, connecting or connected
	MsgsIn     uint64 // messages handed to Inject
	BytesIn    uint64
	InDropped  uint64 // messages Inject refused (its buffers full) or text messages
	MsgsOut    uint64 // messages sent
	BytesOut   uint64
	OutDropped uint64 // sends dropped: unknown peer, channel not open or full, send error
	// The UDP datagrams (DTLS records of SCTP packets, STUN excluded) and
	// their payload bytes exchanged with the peers open now, as pion's
	// ICE counts them on the candidate pairs: with MsgsIn/Out and
	// BytesIn/Out they give the transport's overhead per message.
	WireOut, WireBytesOut, WireIn, WireBytesIn uint64
}

// Server is the WebRTC transport of a snapwire server: an http.Handler
// for signalling (POST an SDP offer, get the answer) and a
// transport.Transport for the peers it connected.
type Server struct {
	cfg    Config
	api    *webrtc.API
	cert   webrtc.Certificate // DTLS, one for every peer (generating one per offer costs each offer)
	nextID atomic.Uint64

	mu     sync.RWMutex
	peers  map[uint64]*peer
	closed bool

	offers, refused, opened, timedOut, closedN atomic.Uint64
	msgsIn, bytesIn, inDropped                 atomic.Uint64
	msgsOut, bytesOut, outDropped              atomic.Uint64
}

// A Server is a transport a server runner attaches (internal/transport).
var _ transport.Transport = (*Server)(nil)

// peer is one browser (or Go client) connection.
type peer struct {
	id   uint64
	addr netip.AddrPort
	from netip.Addr // the offer's remote IP address (invalid: Answer called directly)
	pc   *webrtc.PeerConnection
	dc   *webrtc.DataChannel
	// ch is the detached channel, set once it opened (nil before).
	ch       atomic.Pointer[chanBox]
	timer    *time.Timer   // the connect timeout, stopped when the channel opens
	open     atomic.Bool   // the channel opened: no longer half-open
	done     chan struct{} // closed when the peer is closed
	readDone chan struct{} // closed when the reader exits, or at close if it never started

	mu              sync.Mutex
	started, closed bool // the reader was started; the peer was closed

	msgsIn, bytesIn, msgsOut, bytesOut atomic.Uint64 // this peer's, for its closing log line
}

// channel is the detached data channel as the server uses it: pion's
// *datachannel.DataChannel, or a fake in the allocation tests.
type channel interface {
	ReadDataChannel(p []byte) (n int, isString bool, err error)
	Write(p []byte) (int, error)
	BufferedAmount() uint64
	Close() error
}

type chanBox struct{ ch channel }

// NewServer returns a Server that hands its peers' packets to cfg.Inject.
func NewServer(cfg Config) (*Server, error) {
	if cfg.Inject == nil {
		return nil, errors.New("rtc: Config.Inject is required")
	}
	cfg.defaults()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	cert, err := webrtc.GenerateCertificate(key)
	if err != nil {
		return nil, err
	}
	return &Server{cfg: cfg, api: newAPI(cfg.HostIPs, cfg.Logger), cert: *cert, peers: make(map[uint64]*peer)}, nil
}

// Prefix is the range of the peers' addresses (transport.Transport).
func (s *Server) Prefix() netip.Prefix { return Prefix }

// Send sends p to the peer at to as one data-channel message
// (transport.Transport). It runs on the goroutine that owns the server core:
// it never blocks (pion's SCTP queues the message, copying it) and drops
// the packet when the peer is unknown, its channel is not open, or more
// than Config.MaxBuffered bytes wait unsent. It allocates nothing of its
// own (pion's SCTP allocates its chunk).
func (s *Server) Send(to netip.AddrPort, p []byte) {
	id, ok := peerID(to)
	if !ok {
		s.outDropped.Add(1)
		return
	}
	s.mu.RLock()
	pr := s.peers[id]
	s.mu.RUnlock()
	if pr == nil {
		s.outDropped.Add(1)
		return
	}
	cb := pr.ch.Load()
	if cb == nil || cb.ch.BufferedAmount() > s.cfg.MaxBuffered {
		s.outDropped.Add(1)
		return
	}
	if _, err := cb.ch.Write(p); err != nil {
		s.outDropped.Add(1)
		return
	}
	s.msgsOut.Add(1)
	s.bytesOut.Add(uint64(len(p)))
	pr.msgsOut.Add(1)
	pr.bytesOut.Add(uint64(len(p)))
}

// Stats returns the counters. It asks pion for the statistics of every
// open peer: not for a hot path.
func (s *Server) Stats() Stats {
	s.mu.RLock()
	n := len(s.peers)
	pcs := make([]*webrtc.PeerConnection, 0, n)
	for _, pr := range s.peers {
		if pr.pc != nil {
			pcs = append(pcs, pr.pc)
		}
	}
	s.mu.RUnlock()
	var w [4]uint64
	for _, pc := range pcs {
		pw := wireTotals(pc)
		for i := range w {
			w[i] += pw[i]
		}
	}
	return Stats{
		WireOut: w[0], WireBytesOut: w[1], WireIn: w[2], WireBytesIn: w[3],
		Offers: s.offers.Load(), Refused: s.refused.Load(), Opened: s.opened.Load(), TimedOut: s.timedOut.Load(),
		Closed: s.closedN.Load(), Peers: n,
		MsgsIn: s.msgsIn.Load(), BytesIn: s.bytesIn.Load(), InDropped: s.inDropped.Load(),
		MsgsOut: s.msgsOut.Load(), BytesOut: s.bytesOut.Load(), OutDropped: s.outDropped.Load(),
	}
}

// errFull refuses an offer when MaxPeers are connected or connecting,
// errFullIP when MaxPeersPerIP came from its address, and errHalfOpenIP
// when MaxHalfOpenPerIP of its address's peers are still connecting.
var (
	errFull       = errors.New("rtc: too many peers")
	errFullIP     = errors.New("rtc: too many peers from this address")
	errHalfOpenIP = errors.New("rtc: too many peers connecting from this address")
)

// ServeHTTP is the signalling endpoint: POST with the SDP offer as the
// body (Content-Type application/sdp, ICE candidates gathered), answered
// with the SDP answer, candidates included (non-trickle). Errors: 405 for
// other methods, 413 for an offer over Config.MaxOffer, 400 for a bad
// offer, 503 when Config.MaxPeers are taken or the server is closed, 429 when
// Config.MaxPeersPerIP peers came from the request's address or
// Config.MaxHalfOpenPerIP of them are still connecting (with Retry-After:
// the connect timeout, by when they are open or gone).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		http.Error(w, "POST an SDP offer", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxOffer))
	if err != nil {
		s.refused.Add(1)
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			http.Error(w, "offer too large", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "reading the offer failed", http.StatusBadRequest)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.ConnectTimeout)
	defer cancel()
	from := netip.Addr{}
	if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil {
		from = ap.Addr().Unmap()
	}
	answer, err := s.answerFrom(ctx, string(body), from)
	switch {
	case errors.Is(err, errFullIP), errors.Is(err, errHalfOpenIP):
		s.refused.Add(1)
		if errors.Is(err, errHalfOpenIP) {
			w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(s.cfg.ConnectTimeout.Seconds()))))
		}
		http.Error(w, err.Error(), http.StatusTooManyRequests)
		return
	case errors.Is(err, errFull):
		s.refused.Add(1)
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	case err != nil:
		s.refused.Add(1)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/sdp")
	w.Header().Set("Cache-Control", "no-store")
	io.WriteString(w, answer)
}

// Answer creates a peer for the SDP offer and returns the answer, once
// the server's ICE candidates are gathered. The peer is closed if its
// data channel does not open within Config.ConnectTimeout.
func (s *Server) Answer(ctx context.Context, offer string) (string, error) {
	return s.answerFrom(ctx, offer, netip.Addr{})
}

// answerFrom is Answer for an offer from IP address from (counted against
// MaxPeersPerIP when valid).
func (s *Server) answerFrom(ctx context.Context, offer string, from netip.Addr) (string, error) {
	if !strings.HasPrefix(offer, "v=0") {
		return "", errors.New("rtc: not an SDP offer")
	}
	if from.IsValid() {
		offer = keepCandidatesFrom(offer, from)
	}
	pr, err := s.newPeer(from)
	if err != nil {
		return "", err
	}
	answer, err := s.answer(ctx, pr, offer)
	if err != nil {
		s.closePeer(pr, "signalling failed")
		return "", err
	}
	s.offers.Add(1)
	return answer, nil
}

// newPeer registers a peer with a fresh id and its peer connection and
// data channel, or fails when the server is full or closed.
func (s *Server) newPeer(from netip.Addr) (*peer, error) {
	s.mu.Lock()
	if s.closed || len(s.peers) >= s.cfg.MaxPeers {
		s.mu.Unlock()
		return nil, errFull
	}
	if from.IsValid() {
		n, half := 0, 0
		for _, p := range s.peers { // at most MaxPeers
			if p.from == from {
				n++
				if !p.open.Load() {
					half++
				}
			}
		}
		if n >= s.cfg.MaxPeersPerIP {
			s.mu.Unlock()
			return nil, errFullIP
		}
		if half >= s.cfg.MaxHalfOpenPerIP {
			s.mu.Unlock()
			return nil, errHalfOpenIP
		}
	}
	id := s.nextID.Add(1)
	pr := &peer{id: id, addr: PeerAddr(id), from: from, done: make(chan struct{}), readDone: make(chan struct{})}
	s.peers[id] = pr
	// The connect timeout: the channel opens (open stops it) or the peer
	// goes. A timer, not a goroutine per peer waiting on it.
	pr.mu.Lock() // closePeer and open read timer under it
	pr.timer = time.AfterFunc(s.cfg.ConnectTimeout, func() {
		if !pr.open.Load() {
			s.timedOut.Add(1)
			s.closePeer(pr, "channel not open in time")
		}
	})
	pr.mu.Unlock()
	s.mu.Unlock()
	pc, err := s.api.NewPeerConnection(webrtc.Configuration{Certificates: []webrtc.Certificate{s.cert}})
	if err != nil {
		s.closePeer(pr, "peer connection")
		return nil, err
	}
	pr.pc = pc
	dc, err := pc.CreateDataChannel(Channel, channelInit())
	if err != nil {
		s.closePeer(pr, "data channel")
		return nil, err
	}
	pr.dc = dc
	dc.OnOpen(func() {
		rw, err := dc.Detach()
		if err != nil {
			s.closePeer(pr, "detach failed")
			return
		}
		ch, ok := rw.(channel)
		if !ok {
			rw.Close()
			s.closePeer(pr, "detached channel without BufferedAmount")
			return
		}
		s.open(pr, ch)
	})
	pc.OnConnectionStateChange(func(st webrtc.PeerConnectionState) {
		if st == webrtc.PeerConnectionStateFailed || st == webrtc.PeerConnectionStateClosed {
			s.closePeer(pr, "connection "+st.String())
		}
	})
	return pr, nil
}

// open starts the peer's reader on its opened channel, unless the peer
// was closed meanwhile.
func (s *Server) open(pr *peer, ch channel) {
	pr.mu.Lock()
	if pr.closed {
		pr.mu.Unlock()
		ch.Close()
		return
	}
	pr.started = true
	pr.ch.Store(&chanBox{ch})
	pr.open.Store(true)
	if pr.timer != nil { // nil for the tests' fake peers
		pr.timer.Stop()
	}
	pr.mu.Unlock()
	s.opened.Add(1)
	if s.cfg.Logger != nil && pr.pc != nil {
		// RFC 8260 interleaving means I-DATA chunks: 4 header bytes more
		// than DATA (docs/PROTOCOL.md, "WebRTC transport").
		md, _ := pr.pc.SCTP().Metadata()
		s.log("webrtc peer open", pr, "sctp_interleaving", md.MessageInterleavingEnabled, "partial_reliability", fmt.Sprint(md.PartialReliabilityMode))
	}
	go s.read(pr, ch)
}

func (s *Server) answer(ctx context.Context, pr *peer, offer string) (string, error) {
	if err := pr.pc.SetRemoteDescription(webrtc.SessionDescription{Type: webrtc.SDPTypeOffer, SDP: offer}); err != nil {
		return "", fmt.Errorf("rtc: offer: %w", err)
	}
	ans, err := pr.pc.CreateAnswer(nil)
	if err != nil {
		return "", fmt.Errorf("rtc: answer: %w", err)
	}
	gathered := webrtc.GatheringCompletePromise(pr.pc)
	if err := pr.pc.SetLocalDescription(ans); err != nil {
		return "", fmt.Errorf("rtc: answer: %w", err)
	}
	select {
	case <-gathered:
	case <-ctx.Done():
		return "", fmt.Errorf("rtc: gathering candidates: %w", ctx.Err())
	}
	return pr.pc.LocalDescription().SDP, nil
}

// read is a peer's reader: each message, read into one buffer of
// MaxMessage bytes, goes to Inject (which copies it). It ends when the
// channel closes or breaks the rules, closing the peer.
func (s *Server) read(pr *peer, ch channel) {
	defer close(pr.readDone)
	buf := make([]byte, MaxMessage)
	for {
		n, isString, err := ch.ReadDataChannel(buf)
		if err != nil {
			why := "channel closed"
			if errors.Is(err, io.ErrShortBuffer) {
				why = "message over the maximum size"
			}
			s.closePeer(pr, why)
			return
		}
		if isString || !s.cfg.Inject(pr.addr, buf[:n]) {
			s.inDropped.Add(1)
			continue
		}
		s.msgsIn.Add(1)
		s.bytesIn.Add(uint64(n))
		pr.msgsIn.Add(1)
		pr.bytesIn.Add(uint64(n))
	}
}

func (s *Server) removePeer(pr *peer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.peers[pr.id] != pr {
		return false
	}
	delete(s.peers, pr.id)
	return true
}

// closePeer removes the peer and closes its connection (once).
func (s *Server) closePeer(pr *peer, why string) {
	pr.mu.Lock()
	if pr.closed {
		pr.mu.Unlock()
		return
	}
	pr.closed = true
	if !pr.started {
		close(pr.readDone)
	}
	if pr.timer != nil {
		pr.timer.Stop()
	}
	cb := pr.ch.Load()
	pr.mu.Unlock()
	s.removePeer(pr)
	close(pr.done)
	s.closedN.Add(1)
	if cb != nil {
		cb.ch.Close() // the reader's ReadDataChannel returns
	}
	if pr.pc == nil {
		s.log("webrtc peer closed", pr, "reason", why)
		return
	}
	// GetStats and Close take pion's locks: not on the pion callback
	// goroutine that may have called us.
	go func() {
		var w [4]uint64
		// Zero when the peer closed its side first: pion has closed the
		// ICE agent (and logs that, at debug).
		if pr.pc.ConnectionState() != webrtc.PeerConnectionStateClosed {
			w = wireTotals(pr.pc)
		}
		s.log("webrtc peer closed", pr, "reason", why,
			"msgs_in", pr.msgsIn.Load(), "bytes_in", pr.bytesIn.Load(), "datagrams_in", w[2], "udp_bytes_in", w[3],
			"msgs_out", pr.msgsOut.Load(), "bytes_out", pr.bytesOut.Load(), "datagrams_out", w[0], "udp_bytes_out", w[1])
		pr.pc.Close()
	}()
}

// wireTotals are the datagrams and UDP payload bytes pc sent and received
// on its candidate pairs (pion's ICE counts them; STUN excluded).
func wireTotals(pc *webrtc.PeerConnection) (w [4]uint64) {
	for _, st := range pc.GetStats() {
		if p, ok := st.(webrtc.ICECandidatePairStats); ok {
			w[0], w[1] = w[0]+uint64(p.PacketsSent), w[1]+p.BytesSent
			w[2], w[3] = w[2]+uint64(p.PacketsReceived), w[3]+p.BytesReceived
		}
	}
	return w
}

// Close closes every peer and refuses new offers. It waits (at most 5 s)
// for the peers' readers to exit.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	prs := make([]*peer, 0, len(s.peers))
	for _, pr := range s.peers {
		prs = append(prs, pr)
	}
	s.mu.Unlock()
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	for _, pr := range prs {
		s.closePeer(pr, "server closing")
		if pr.pc != nil {
			pr.pc.Close()
		}
	}
	for _, pr := range prs {
		select {
		case <-pr.readDone:
		case <-deadline.C:
			return errors.New("rtc: peers' readers did not exit in 5s")
		}
	}
	return nil
}

func (s *Server) log(msg string, pr *peer, args ...any) {
	if s.cfg.Logger != nil {
		s.cfg.Logger.Info(msg, append([]any{"peer", pr.addr.String()}, args...)...)
	}
}

// keepCandidatesFrom returns offer without the ICE candidates whose address is not from, the
// address the offer came from. The server sends connectivity checks to every remote
// candidate, so an offer naming other hosts would have it send STUN traffic to them (RFC 8445
// §7.2.1); without them the connection still forms, from the address the client's own checks
// arrive from (a peer-reflexive candidate, RFC 8445 §7.3.1.3). Candidates named by mDNS
// (".local", which the server does not resolve) go too. At most MaxOffer bytes are read.
func keepCandidatesFrom(offer string, from netip.Addr) string {
	var b strings.Builder
	b.Grow(len(offer))
	for line := range strings.Lines(offer) {
		if rest, ok := strings.CutPrefix(line, "a=candidate:"); ok {
			// foundation component transport priority connection-address port typ ...
			// (RFC 8839 §5.1)
			f := strings.Fields(rest)
			if len(f) < 6 {
				continue
			}
			ip, err := netip.ParseAddr(f[4])
			if err != nil || ip.Unmap() != from {
				continue
			}
		}
		b.WriteString(line)
	}
	return b.String()
}

// Attach makes a Server whose peers' packets go to r (Config.Inject is
// r.Inject) and attaches it as r's second transport, before r runs; the
// Server is closed again if r refuses it. r is a server.Runner as
// serverhook.Host returns it.
func Attach(r transport.Host, cfg Config) (*Server, error) {
	cfg.Inject = r.Inject
	s, err := NewServer(cfg)
	if err != nil {
		return nil, err
	}
	if err := transport.Attach(r, s); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}
