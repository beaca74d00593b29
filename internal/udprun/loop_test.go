package udprun

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"net"
	"net/netip"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/testwait"
)

// goid is the current goroutine's id, from the header of its stack trace
// ("goroutine 7 [running]:"); tests only.
func goid() uint64 {
	var b [64]byte
	s := b[:runtime.Stack(b[:], false)]
	s = bytes.TrimPrefix(s, []byte("goroutine "))
	s = s[:bytes.IndexByte(s, ' ')]
	id, _ := strconv.ParseUint(string(s), 10, 64)
	return id
}

// testCore records what the loop does to it. Its fields are touched only
// on the owner goroutine, except through channels.
type testCore struct {
	started, stopped int
	owner            []uint64 // goroutine ids of Start, HandlePacket, Advance, Stop calls
	seqs             []uint32 // first 4 bytes of each packet
	bufs             map[*byte]bool
	got              chan struct{} // a token per packet, if not nil
	noRecord         bool          // leave seqs alone (allocation tests)
	done             bool          // Advance reports done
	doneAfter        int           // Advance reports done after this many packets, if > 0
	doneErr          error
}

func (c *testCore) Start(now time.Duration) {
	c.started++
	c.owner = append(c.owner, goid())
}

func (c *testCore) HandlePacket(now time.Duration, from netip.AddrPort, pkt []byte) {
	if c.started != 1 {
		panic("packet before Start")
	}
	if len(pkt) >= 4 && !c.noRecord {
		c.seqs = append(c.seqs, binary.LittleEndian.Uint32(pkt))
	}
	if c.bufs != nil {
		c.bufs[&pkt[:1][0]] = true
	}
	if c.got != nil {
		c.got <- struct{}{}
	}
}

func (c *testCore) Advance(now time.Duration) (time.Duration, bool, error) {
	done := c.done || c.doneAfter > 0 && len(c.seqs) >= c.doneAfter
	return now + time.Hour, done, c.doneErr
}

func (c *testCore) Stop(now time.Duration) {
	c.stopped++
	c.owner = append(c.owner, goid())
}

func listen(t testing.TB) *net.UDPConn {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// sender is a socket connected to addr.
func sender(t testing.TB, addr netip.AddrPort) *net.UDPConn {
	t.Helper()
	conn, err := net.DialUDP("udp", nil, net.UDPAddrFromAddrPort(addr))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

func send(t testing.TB, c *net.UDPConn, seq uint32) {
	t.Helper()
	var b [32]byte
	binary.LittleEndian.PutUint32(b[:], seq)
	if _, err := c.Write(b[:]); err != nil {
		t.Fatal(err)
	}
}

// running starts l.Run on a new goroutine and returns the goroutine's id,
// a cancel func and a channel that receives Run's result. At cleanup it
// cancels Run and waits (at most 5s) for it to return.
func running[C Core](t testing.TB, l *Loop[C]) (uint64, context.CancelFunc, chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ids, res, exited := make(chan uint64, 1), make(chan error, 1), make(chan struct{})
	go func() {
		defer close(exited)
		ids <- goid()
		res <- l.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			t.Error("Run did not return")
		}
	})
	return <-ids, cancel, res
}

func waitToken(t *testing.T, ch chan struct{}) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("no packet within 5s")
	}
}

// Acceptance: Do, Start, HandlePacket and Stop all run on the goroutine
// that called Run.
func TestDoRunsOnOwner(t *testing.T) {
	conn := listen(t)
	core := &testCore{got: make(chan struct{}, 1)}
	l := New(conn, core, Config{})
	owner, cancel, res := running(t, l)
	ctx, cancelDo := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelDo()
	var doID uint64
	if !l.Do(ctx, func(now time.Duration, c *testCore) { doID = goid() }) {
		t.Fatal("Do returned false while Run runs")
	}
	if doID != owner {
		t.Errorf("Do ran on goroutine %d, Run on %d", doID, owner)
	}
	send(t, sender(t, l.conn.LocalAddr().(*net.UDPAddr).AddrPort()), 1)
	waitToken(t, core.got)
	cancel()
	if err := <-res; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if core.started != 1 || core.stopped != 1 {
		t.Errorf("Start %d times, Stop %d times", core.started, core.stopped)
	}
	for i, id := range core.owner {
		if id != owner {
			t.Errorf("core call %d on goroutine %d, Run on %d", i, id, owner)
		}
	}
	if len(core.seqs) != 1 {
		t.Errorf("%d packets handled", len(core.seqs))
	}
}

// Acceptance: datagrams reach the core in the order sent, none lost or
// dropped, and the pool's buffers are reused: no more distinct buffers
// reach the core than the pool holds. Each batch is sent without waiting;
// a batch of pool-1 always finds a buffer (the owner may still hold the
// previous batch's last one).
func TestPacketsInOrderAndBuffersReused(t *testing.T) {
	const batches, pool, batch = 40, 8, 7
	conn := listen(t)
	core := &testCore{got: make(chan struct{}, batch), bufs: map[*byte]bool{}}
	l := New(conn, core, Config{Buffers: pool})
	_, cancel, res := running(t, l)
	out := sender(t, l.conn.LocalAddr().(*net.UDPAddr).AddrPort())
	for b := range batches {
		for i := range batch {
			send(t, out, uint32(b*batch+i))
		}
		for range batch {
			waitToken(t, core.got)
		}
	}
	cancel()
	<-res
	if len(core.seqs) != batches*batch {
		t.Fatalf("%d packets handled, want %d", len(core.seqs), batches*batch)
	}
	for i, s := range core.seqs {
		if s != uint32(i) {
			t.Fatalf("packet %d carries %d", i, s)
		}
	}
	if len(core.bufs) > pool {
		t.Errorf("%d distinct buffers for a pool of %d", len(core.bufs), pool)
	}
	if st := l.Stats(); st.Received != batches*batch || st.Dropped != 0 {
		t.Errorf("stats %+v", st)
	}
}

// A burst larger than the pool, sent while the owner is busy in a Do,
// arrives in order up to the pool's size; the rest is dropped and counted,
// and the loop recovers once the owner is free.
func TestBurstDropsWhenPoolEmpty(t *testing.T) {
	const pool, burst = 2, 10
	conn := listen(t)
	core := &testCore{got: make(chan struct{}, burst+1)}
	l := New(conn, core, Config{Buffers: pool})
	_, _, _ = running(t, l)
	ctx, cancelDo := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancelDo()
	release, inDo := make(chan struct{}), make(chan struct{})
	doDone := make(chan bool, 1)
	go func() {
		doDone <- l.Do(ctx, func(time.Duration, *testCore) { close(inDo); <-release })
	}()
	<-inDo
	out := sender(t, l.conn.LocalAddr().(*net.UDPAddr).AddrPort())
	for i := range burst {
		send(t, out, uint32(i))
	}
	if !testwait.Until(testwait.Hang, func() bool { st := l.Stats(); return st.Received+st.Dropped >= burst }) {
		t.Fatalf("reader saw %+v of %d datagrams", l.Stats(), burst)
	}
	if st := l.Stats(); st.Received != pool || st.Dropped != burst-pool {
		t.Errorf("stats %+v, want %d received and %d dropped", st, pool, burst-pool)
	}
	close(release)
	if !<-doDone {
		t.Error("Do returned false")
	}
	for range pool {
		waitToken(t, core.got)
	}
	send(t, out, 99)
	waitToken(t, core.got)
	seqs := []uint32(nil)
	l.Do(ctx, func(_ time.Duration, c *testCore) { seqs = append(seqs, c.seqs...) })
	if want := []uint32{0, 1, 99}; !equal(seqs, want) {
		t.Errorf("handled %v, want %v", seqs, want)
	}
}

func equal(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Config.Filter runs before a buffer is used: rejected datagrams never
// reach the core and are counted.
func TestFilter(t *testing.T) {
	conn := listen(t)
	good, bad := listen(t), listen(t)
	defer good.Close()
	defer bad.Close()
	goodAddr := good.LocalAddr().(*net.UDPAddr).AddrPort()
	core := &testCore{got: make(chan struct{}, 4)}
	l := New(conn, core, Config{Filter: func(from netip.AddrPort) bool { return from == goodAddr }})
	_, cancel, res := running(t, l)
	to := l.conn.LocalAddr().(*net.UDPAddr).AddrPort()
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], 7)
	bad.WriteToUDPAddrPort(b[:], to)
	binary.LittleEndian.PutUint32(b[:], 8)
	good.WriteToUDPAddrPort(b[:], to)
	waitToken(t, core.got)
	cancel()
	<-res
	if !equal(core.seqs, []uint32{8}) {
		t.Errorf("handled %v, want [8]", core.seqs)
	}
	if st := l.Stats(); st.Filtered != 1 || st.Received != 1 {
		t.Errorf("stats %+v", st)
	}
}

// Acceptance: when Run returns, its reader goroutine is gone: Run runs on
// the test goroutine, so the count right after it returns must equal the
// count before (no waiting). Both ways out are checked: Advance done after
// a packet, and a cancelled context. A last round runs Run on its own
// goroutine, cancelled mid-run, and allows a bounded wait for that
// goroutine to exit.
func TestShutdownLeavesNoGoroutines(t *testing.T) {
	ctxDone, cancel := context.WithCancel(context.Background())
	cancel()
	stacks := make([]byte, 0, 1<<20)
	for i := range 3 {
		conn := listen(t)
		core := &testCore{doneAfter: 1}
		l := New(conn, core, Config{})
		ctx := context.Background()
		if i == 1 {
			ctx = ctxDone
		} else {
			// The datagram waits in the socket until the reader starts.
			send(t, sender(t, conn.LocalAddr().(*net.UDPAddr).AddrPort()), 1)
		}
		before := runtime.NumGoroutine()
		err := l.Run(ctx)
		// Every goroutine's stack, taken at once: a goroutine that another
		// test's timer started may come and go at any time on a loaded
		// machine, so the total is reported and the loop's own goroutines
		// must be gone.
		// The reader closes readerDone in a deferred call, so Run can
		// return while that goroutine is still on its way out: wait for
		// it to go, bounded only by the hang detector.
		var n, readers int
		testwait.Until(testwait.Hang, func() bool {
			stacks = stacks[:runtime.Stack(stacks[:cap(stacks)], true)]
			n, readers = runtime.NumGoroutine(), loopGoroutines(stacks)
			return readers == 0
		})
		if err != nil {
			t.Fatal(err)
		}
		if readers != 0 {
			t.Errorf("round %d: %d of the loop's goroutines left after Run (%d goroutines before Run, %d after)", i, readers, before, n)
		}
		if i != 1 && len(core.seqs) != 1 {
			t.Errorf("round %d: %d packets handled", i, len(core.seqs))
		}
		if _, _, err := conn.ReadFromUDPAddrPort(make([]byte, 1)); !errors.Is(err, net.ErrClosed) {
			t.Errorf("round %d: socket not closed: %v", i, err)
		}
	}

	before := runtime.NumGoroutine()
	conn := listen(t)
	core := &testCore{got: make(chan struct{}, 1)}
	l := New(conn, core, Config{})
	ctx, stop := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() { res <- l.Run(ctx) }()
	send(t, sender(t, conn.LocalAddr().(*net.UDPAddr).AddrPort()), 1)
	waitToken(t, core.got)
	stop()
	select {
	case err := <-res:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return")
	}
	n := runtime.NumGoroutine()
	testwait.Until(testwait.Hang, func() bool { n = runtime.NumGoroutine(); return n <= before })
	if n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines before, %d after:\n%s", before, n, buf[:runtime.Stack(buf, true)])
	}
}

// Run returns Advance's error when the core reports done, and closes the
// socket; a second Run is refused.
func TestAdvanceDone(t *testing.T) {
	conn := listen(t)
	want := errors.New("gone")
	l := New(conn, &testCore{done: true, doneErr: want}, Config{})
	if err := l.Run(context.Background()); err != want {
		t.Fatalf("Run = %v, want %v", err, want)
	}
	if err := l.Run(context.Background()); err != ErrRunTwice {
		t.Errorf("second Run = %v", err)
	}
}

// Acceptance: Do returns true only once f has returned, even when its
// context ends while f runs (so f never runs after Do returns, and what f
// wrote is the caller's to read: issue 24's race-free reading); false,
// without running f, when ctx is already done and after Run has returned.
func TestDoCancelled(t *testing.T) {
	conn := listen(t)
	l := New(conn, &testCore{}, Config{})
	_, cancelRun, res := running(t, l)
	ctx, cancel := context.WithCancel(context.Background())
	inF, release, finished := make(chan struct{}), make(chan struct{}), make(chan struct{})
	ret := make(chan bool, 1)
	go func() {
		ret <- l.Do(ctx, func(time.Duration, *testCore) { close(inF); <-release; close(finished) })
	}()
	select {
	case <-inF:
	case <-time.After(5 * time.Second):
		t.Fatal("f did not start")
	}
	cancel()
	select {
	case <-ret:
		t.Fatal("Do returned while f was running on the owner")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	<-finished
	if !<-ret {
		t.Error("Do returned false after f ran to completion")
	}
	if l.Do(ctx, func(time.Duration, *testCore) { t.Error("f ran with a done ctx") }) {
		t.Error("Do with a done ctx returned true")
	}
	cancelRun()
	<-res
	// Do after Run must not wait for its ctx: with a ctx that never
	// ends, waiting would hang here, caught by the hang bound.
	returned := make(chan bool, 1)
	go func() {
		returned <- l.Do(context.Background(), func(time.Duration, *testCore) { t.Error("f ran after Run returned") })
	}()
	select {
	case ok := <-returned:
		if ok {
			t.Error("Do after Run returned true")
		}
	case <-time.After(testwait.Hang):
		t.Error("Do after Run waited")
	}
}

// Do before Run waits for Run to start.
func TestDoBeforeRun(t *testing.T) {
	conn := listen(t)
	l := New(conn, &testCore{}, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ret := make(chan bool, 1)
	go func() { ret <- l.Do(ctx, func(time.Duration, *testCore) {}) }()
	runtime.Gosched()
	running(t, l)
	if !<-ret {
		t.Error("Do issued before Run returned false")
	}
}

// Acceptance: the per-packet path (socket read, queue, HandlePacket,
// buffer return, Advance, timer reset) allocates nothing. AllocsPerRun
// counts every goroutine's allocations, the sender's write included.
func TestNoAllocsPerPacket(t *testing.T) {
	if testing.Short() {
		t.Skip("real sockets")
	}
	conn := listen(t)
	core := &testCore{got: make(chan struct{}, 1), noRecord: true}
	l := New(conn, core, Config{})
	_, _, _ = running(t, l)
	out := sender(t, conn.LocalAddr().(*net.UDPAddr).AddrPort())
	deadline := time.NewTimer(30 * time.Second) // one timer: time.After allocates
	defer deadline.Stop()
	var b [64]byte
	round := func() {
		if _, err := out.Write(b[:]); err != nil {
			t.Fatal(err)
		}
		select {
		case <-core.got:
		case <-deadline.C:
			t.Fatal("packets stalled")
		}
	}
	for range 100 {
		round()
	}
	if a := testing.AllocsPerRun(1000, round); a != 0 {
		t.Errorf("%v allocations per packet", a)
	}
	if st := l.Stats(); st.Received != 1101 || st.Dropped != 0 {
		t.Errorf("stats %+v", st)
	}
}

// BenchmarkPacketRoundTrip measures one datagram from a loopback socket
// through the reader and the loop to the core's HandlePacket, and the
// sender's wake-up.
func BenchmarkPacketRoundTrip(b *testing.B) {
	conn := listen(b)
	core := &testCore{got: make(chan struct{}, 1), noRecord: true}
	l := New(conn, core, Config{})
	running(b, l)
	out := sender(b, conn.LocalAddr().(*net.UDPAddr).AddrPort())
	var buf [64]byte
	b.ReportAllocs()
	for b.Loop() {
		if _, err := out.Write(buf[:]); err != nil {
			b.Fatal(err)
		}
		<-core.got
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/packet")
	b.ReportMetric(float64(l.Stats().Dropped), "dropped")
}

// Close before Run releases the socket (its port can be bound again), Do
// returns false at once, and a later Run says it cannot run.
//
// Guards against: a socket leaked by a Runner whose Run is never called.
func TestCloseBeforeRun(t *testing.T) {
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	addr := conn.LocalAddr().(*net.UDPAddr)
	l := New(conn, &testCore{}, Config{})
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := net.ListenUDP("udp4", addr)
	if err != nil {
		t.Fatalf("the port is still held after Close: %v", err)
	}
	again.Close()
	if l.Do(context.Background(), func(time.Duration, *testCore) {}) {
		t.Error("Do ran on a closed loop")
	}
	if err := l.Run(context.Background()); !errors.Is(err, ErrRunTwice) {
		t.Errorf("Run after Close: %v", err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// WriteErrors counts failures and keeps the last.
func TestWriteErrors(t *testing.T) {
	var w WriteErrors
	w.Add(nil)
	if n, err := w.Get(); n != 0 || err != nil {
		t.Fatalf("%d, %v", n, err)
	}
	e := errors.New("sendto: no buffer space")
	w.Add(errors.New("first"))
	w.Add(e)
	if n, err := w.Get(); n != 2 || err != e {
		t.Errorf("%d, %v", n, err)
	}
}

// loopGoroutines counts the goroutines in a dump of every stack that a Loop
// started (its reader, whether it has begun to run or not).
func loopGoroutines(buf []byte) int {
	n := 0
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "created by github.com/snapwire/snapwire/internal/udprun.") {
			n++
		}
	}
	return n
}

// Injected packets reach the core on the owner goroutine, in order with
// the ones injected before them, copied (the caller's slice is reused at
// once); a packet longer than a buffer and one that finds the pool empty
// are dropped and counted, and injecting allocates nothing.
//
// Guards against: a second transport (WebRTC data channels) touching the
// core from its own goroutine, or a caller's buffer kept past Inject.
func TestInject(t *testing.T) {
	conn := listen(t)
	core := &testCore{got: make(chan struct{}, 64)}
	l := New(conn, core, Config{Buffers: 4, BufferSize: 64})
	owner, _, _ := running(t, l)
	from := netip.MustParseAddrPort("[100::7]:1")
	var b [32]byte
	for i := range uint32(3) {
		binary.LittleEndian.PutUint32(b[:], 10+i)
		if !l.Inject(from, b[:]) {
			t.Fatalf("inject %d refused", i)
		}
		waitToken(t, core.got)
	}
	if l.Inject(from, make([]byte, 65)) {
		t.Error("a packet longer than a buffer was queued")
	}
	var seqs []uint32
	var owners []uint64
	l.Do(context.Background(), func(now time.Duration, c *testCore) {
		seqs = append(seqs, c.seqs...)
		owners = append(owners, c.owner...)
	})
	if want := []uint32{10, 11, 12}; !slices.Equal(seqs, want) {
		t.Errorf("core saw %v, want %v", seqs, want)
	}
	for _, id := range owners {
		if id != owner {
			t.Errorf("core called on goroutine %d, owner %d", id, owner)
		}
	}
	if st := l.Stats(); st.Injected != 3 || st.InjectDrop != 1 || st.Received != 0 {
		t.Errorf("stats %+v", st)
	}
	core2 := &testCore{got: make(chan struct{}, 1), noRecord: true}
	l2 := New(listen(t), core2, Config{})
	running(t, l2)
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	round := func() {
		l2.Inject(from, b[:])
		select {
		case <-core2.got:
		case <-deadline.C:
			t.Fatal("injected packets stalled")
		}
	}
	for range 100 {
		round()
	}
	if a := testing.AllocsPerRun(1000, round); a != 0 {
		t.Errorf("%v allocations per injected packet", a)
	}
}

// With every buffer held, Inject drops instead of waiting.
func TestInjectFullPool(t *testing.T) {
	l := New(listen(t), &testCore{}, Config{Buffers: 2, BufferSize: 16})
	defer l.Close()
	// Run never started: nobody drains the queue.
	if !l.Inject(netip.AddrPort{}, []byte{1}) || !l.Inject(netip.AddrPort{}, []byte{2}) {
		t.Fatal("inject into a free pool refused")
	}
	if l.Inject(netip.AddrPort{}, []byte{3}) {
		t.Error("inject into an empty pool queued")
	}
	if st := l.Stats(); st.Injected != 2 || st.InjectDrop != 1 {
		t.Errorf("stats %+v", st)
	}
}
