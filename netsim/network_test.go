package netsim

import (
	"encoding/binary"
	"errors"
	"math"
	"net/netip"
	"slices"
	"testing"
	"time"
)

var (
	addrA  = netip.MustParseAddrPort("10.0.0.1:1000")
	addrB  = netip.MustParseAddrPort("10.0.0.2:2000")
	addrA2 = netip.MustParseAddrPort("10.0.0.1:1001")
	addrC  = netip.MustParseAddrPort("10.0.0.3:3000")
)

func mustListen(t testing.TB, n *Network, a netip.AddrPort) *Endpoint {
	t.Helper()
	e, err := n.Listen(a)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// arrival is one packet read from an inbox right after it was delivered.
type arrival struct {
	at   time.Duration
	from netip.AddrPort
	id   uint64        // first 8 bytes of the payload
	sent time.Duration // next 8 bytes
	size int
}

// drain reads every waiting packet of e, stamping it with the current time.
func drain(n *Network, e *Endpoint, out []arrival) []arrival {
	var buf [2048]byte
	for {
		k, from, ok := e.ReadFrom(buf[:])
		if !ok {
			return out
		}
		a := arrival{at: n.Now(), from: from, size: k}
		if k >= 16 {
			a.id = binary.LittleEndian.Uint64(buf[:])
			a.sent = time.Duration(binary.LittleEndian.Uint64(buf[8:]))
		}
		out = append(out, a)
	}
}

// stepTo advances to end one delivery time at a time, draining dst after
// each step so every arrival carries its exact delivery time.
func stepTo(n *Network, dst *Endpoint, end time.Duration, out []arrival) []arrival {
	for t, ok := n.NextDelivery(); ok && t <= end; t, ok = n.NextDelivery() {
		n.AdvanceTo(t)
		out = drain(n, dst, out)
	}
	n.AdvanceTo(end)
	return drain(n, dst, out)
}

// stream sends count packets of size bytes (id, send time, padding) from
// src to dst, one every gap, and returns every arrival at dst, with
// delivery times exact, after letting the network settle for tail.
func stream(n *Network, src, dst *Endpoint, count int, size int, gap, tail time.Duration) []arrival {
	p := make([]byte, max(size, 16))
	var out []arrival
	for i := range count {
		out = stepTo(n, dst, n.Now(), out)
		binary.LittleEndian.PutUint64(p, uint64(i))
		binary.LittleEndian.PutUint64(p[8:], uint64(n.Now()))
		if err := src.WriteTo(p, dst.Addr()); err != nil {
			panic(err)
		}
		out = stepTo(n, dst, n.Now()+gap, out)
	}
	return stepTo(n, dst, n.Now()+tail, out)
}

func TestDeterminism(t *testing.T) {
	cfg := LinkConfig{Latency: 30 * time.Millisecond, Jitter: 10 * time.Millisecond,
		Loss: 0.1, Duplicate: 0.05, Reorder: 0.05, Bandwidth: 200_000}
	trace := func(seed uint64) []arrival {
		n := New(seed)
		n.SetDefault(cfg)
		a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
		out := stream(n, a, b, 2000, 100, time.Millisecond, time.Second)
		// and the other direction, interleaved with the first's state
		return append(out, stream(n, b, a, 500, 300, 500*time.Microsecond, time.Second)...)
	}
	t1, t2, t3 := trace(7), trace(7), trace(8)
	if len(t1) < 2000 {
		t.Fatalf("only %d arrivals", len(t1))
	}
	if !slices.Equal(t1, t2) {
		t.Fatal("same seed, different delivery traces")
	}
	if slices.Equal(t1, t3) {
		t.Fatal("different seeds, identical delivery traces")
	}
}

func TestLossAndDuplicateRates(t *testing.T) {
	const (
		total = 100_000
		loss  = 0.10
		dup   = 0.05
	)
	n := New(42)
	n.SetDefault(LinkConfig{Latency: 5 * time.Millisecond, Loss: loss, Duplicate: dup})
	a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
	seen := make([]int, total)
	var p [16]byte
	var buf [64]byte
	for i := range total {
		binary.LittleEndian.PutUint64(p[:], uint64(i))
		if err := a.WriteTo(p[:], b.Addr()); err != nil {
			t.Fatal(err)
		}
		if i%100 == 99 {
			n.Advance(time.Millisecond)
		}
		for {
			k, _, ok := b.ReadFrom(buf[:])
			if !ok {
				break
			}
			if k != 16 {
				t.Fatalf("read %d bytes", k)
			}
			seen[binary.LittleEndian.Uint64(buf[:])]++
		}
	}
	n.Advance(time.Second)
	for {
		_, _, ok := b.ReadFrom(buf[:])
		if !ok {
			break
		}
		seen[binary.LittleEndian.Uint64(buf[:])]++
	}
	unique, extra := 0, 0
	for _, c := range seen {
		if c > 2 {
			t.Fatalf("a packet arrived %d times", c)
		}
		if c > 0 {
			unique++
			extra += c - 1
		}
	}
	gotLoss := 1 - float64(unique)/total
	gotDup := float64(extra) / float64(unique)
	t.Logf("loss %.4f (want %.2f), dup %.4f (want %.2f)", gotLoss, loss, gotDup, dup)
	if math.Abs(gotLoss-loss) > 0.01 {
		t.Errorf("measured loss %.4f, configured %.2f", gotLoss, loss)
	}
	if math.Abs(gotDup-dup) > 0.01 {
		t.Errorf("measured duplication %.4f, configured %.2f", gotDup, dup)
	}
	st := n.Stats()
	if st.Sent != total || st.Delivered != uint64(unique+extra) || st.Lost != uint64(total-unique) ||
		st.Duplicated != uint64(extra) || st.Dropped() != st.Lost || n.inFlight() != 0 {
		t.Errorf("stats %+v disagree with receiver: unique %d extra %d", st, unique, extra)
	}
}

func TestLatencyJitterBounds(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name     string
		cfg      LinkConfig
		min, max time.Duration
		fifo     bool // order kept: bounds hold, the spread is narrower
	}{
		{"latency", LinkConfig{Latency: 40 * ms}, 40 * ms, 40 * ms, false},
		{"jitter", LinkConfig{Latency: 40 * ms, Jitter: 15 * ms, JitterReorders: true}, 25 * ms, 55 * ms, false},
		{"jitter in order", LinkConfig{Latency: 40 * ms, Jitter: 15 * ms}, 25 * ms, 55 * ms, true},
		{"jitter above latency clamps at zero", LinkConfig{Latency: 5 * ms, Jitter: 20 * ms, JitterReorders: true}, 0, 25 * ms, false},
		{"reorder", LinkConfig{Latency: 40 * ms, Jitter: 5 * ms, Reorder: 0.2, ReorderDelay: 30 * ms, JitterReorders: true}, 35 * ms, 75 * ms, false},
		{"duplicate", LinkConfig{Latency: 40 * ms, Jitter: 5 * ms, Duplicate: 0.3, JitterReorders: true}, 35 * ms, 45 * ms, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := New(3)
			n.SetDefault(c.cfg)
			a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
			out := stream(n, a, b, 3000, 32, 700*time.Microsecond, time.Second)
			if len(out) < 3000 {
				t.Fatalf("%d arrivals", len(out))
			}
			lo, hi := time.Duration(math.MaxInt64), time.Duration(0)
			for _, r := range out {
				d := r.at - r.sent
				lo, hi = min(lo, d), max(hi, d)
				if d < c.min || d > c.max {
					t.Fatalf("packet %d delayed %v, want within [%v, %v]", r.id, d, c.min, c.max)
				}
			}
			// the range is used, not just respected
			if spread := c.max - c.min; !c.fifo && spread > 0 && hi-lo < spread*8/10 {
				t.Errorf("delays span only [%v, %v] of [%v, %v]", lo, hi, c.min, c.max)
			}
		})
	}
}

func TestReorderOnlyWithReorderOrJitter(t *testing.T) {
	ms := time.Millisecond
	cases := []struct {
		name    string
		cfg     LinkConfig
		wantOOO bool
	}{
		{"perfect", LinkConfig{}, false},
		{"latency", LinkConfig{Latency: 50 * ms}, false},
		{"loss and duplicates", LinkConfig{Latency: 50 * ms, Loss: 0.2, Duplicate: 0.2}, false},
		{"bandwidth", LinkConfig{Latency: 10 * ms, Bandwidth: 20_000}, false},
		{"jitter keeps order", LinkConfig{Latency: 50 * ms, Jitter: 5 * ms}, false},
		{"jitter that reorders", LinkConfig{Latency: 50 * ms, Jitter: 5 * ms, JitterReorders: true}, true},
		{"reorder", LinkConfig{Latency: 50 * ms, Reorder: 0.05}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			n := New(11)
			n.SetDefault(c.cfg)
			a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
			out := stream(n, a, b, 2000, 100, ms, 2*time.Second)
			if len(out) < 400 { // the bandwidth case tail-drops over half
				t.Fatalf("%d arrivals", len(out))
			}
			ooo, highest := 0, uint64(0)
			for i, r := range out {
				if i > 0 && r.id < highest {
					ooo++
				}
				highest = max(highest, r.id)
			}
			t.Logf("%d of %d arrived out of order", ooo, len(out))
			if got := ooo > 0; got != c.wantOOO {
				t.Errorf("out of order arrivals %d, want some: %v", ooo, c.wantOOO)
			}
			if c.cfg.Reorder == 0 && n.Stats().Reordered != 0 {
				t.Errorf("Reordered = %d with Reorder 0", n.Stats().Reordered)
			}
		})
	}
}

func TestEqualTimesFIFO(t *testing.T) {
	n := New(1)
	n.SetDefault(LinkConfig{Latency: 10 * time.Millisecond})
	a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
	c := mustListen(t, n, addrC)
	var p [16]byte
	for i := range 500 { // all sent at the same instant, from two sources
		binary.LittleEndian.PutUint64(p[:], uint64(i))
		src := a
		if i%3 == 0 {
			src = c
		}
		src.WriteTo(p[:], b.Addr())
	}
	n.Advance(10 * time.Millisecond)
	out := drain(n, b, nil)
	if len(out) != 500 {
		t.Fatalf("%d arrivals", len(out))
	}
	for i, r := range out {
		if r.id != uint64(i) {
			t.Fatalf("arrival %d is packet %d: equal times must be first-in first-out", i, r.id)
		}
	}
}

func TestBandwidthCap(t *testing.T) {
	const (
		capBps = 50_000
		size   = 1000
	)
	for _, offered := range []int{2 * capBps, capBps * 11 / 10} {
		n := New(5)
		cfg := LinkConfig{Latency: 20 * time.Millisecond, Bandwidth: capBps}
		n.SetDefault(cfg)
		a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
		gap := time.Duration(int64(time.Second) * size / int64(offered))
		count := int(10 * time.Second / gap)
		out := stream(n, a, b, count, size, gap, 0) // stop at 10 s
		var bytes int
		maxDelay := time.Duration(0)
		for _, r := range out {
			bytes += r.size
			maxDelay = max(maxDelay, r.at-r.sent)
		}
		rate := float64(bytes) / n.Now().Seconds()
		t.Logf("offered %d B/s: delivered %.0f B/s over %v, max delay %v, stats %+v", offered, rate, n.Now(), maxDelay, n.Stats())
		if math.Abs(rate-capBps)/capBps > 0.02 {
			t.Errorf("delivered %.0f B/s, cap %d", rate, capBps)
		}
		if n.Stats().DroppedQueue == 0 {
			t.Error("no tail drops while offering more than the cap")
		}
		// the queue bounds the delay: latency + backlog + own serialization
		bound := cfg.Latency + time.Duration(int64(time.Second)*(cfg.queueBytes()+size)/capBps)
		if maxDelay > bound {
			t.Errorf("max delay %v exceeds queue bound %v", maxDelay, bound)
		}
	}

	// under the cap: no drops, and the delay is latency + serialization
	n := New(5)
	n.SetDefault(LinkConfig{Latency: 20 * time.Millisecond, Bandwidth: capBps})
	a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
	out := stream(n, a, b, 400, size, 25*time.Millisecond, time.Second)
	if len(out) != 400 || n.Stats().DroppedQueue != 0 {
		t.Fatalf("under the cap: %d arrivals, stats %+v", len(out), n.Stats())
	}
	for _, r := range out {
		if d := r.at - r.sent; d != 40*time.Millisecond {
			t.Fatalf("delay %v, want 20ms latency + 20ms serialization", d)
		}
	}
}

func TestMTU(t *testing.T) {
	n := New(1)
	n.SetDefault(LinkConfig{MTU: 500})
	a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
	for _, size := range []int{1, 499, 500, 501, 1400} {
		a.WriteTo(make([]byte, size), b.Addr())
	}
	n.Advance(time.Millisecond)
	out := drain(n, b, nil)
	var sizes []int
	for _, r := range out {
		sizes = append(sizes, r.size)
	}
	if !slices.Equal(sizes, []int{1, 499, 500}) {
		t.Errorf("delivered sizes %v", sizes)
	}
	if st := n.Stats(); st.DroppedMTU != 2 || st.Delivered != 3 || st.Sent != 5 {
		t.Errorf("stats %+v", st)
	}
}

func TestSetLinkOverridesDefault(t *testing.T) {
	n := New(1)
	n.SetDefault(LinkConfig{Latency: 10 * time.Millisecond})
	a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
	b.WriteTo([]byte("warm"), a.Addr()) // b->a exists before the default changes
	n.SetLink(addrA, addrB, LinkConfig{Latency: 100 * time.Millisecond})
	n.SetDefault(LinkConfig{Latency: 30 * time.Millisecond})
	n.Advance(time.Second)
	drain(n, a, nil)

	start := n.Now()
	a.WriteTo(make([]byte, 16), b.Addr())
	b.WriteTo(make([]byte, 16), a.Addr())
	var atA, atB time.Duration
	for t, ok := n.NextDelivery(); ok; t, ok = n.NextDelivery() {
		n.AdvanceTo(t)
		if len(drain(n, a, nil)) == 1 {
			atA = n.Now() - start
		}
		if len(drain(n, b, nil)) == 1 {
			atB = n.Now() - start
		}
	}
	if atA != 30*time.Millisecond {
		t.Errorf("b->a took %v: SetDefault must update a link already used", atA)
	}
	if atB != 100*time.Millisecond {
		t.Errorf("a->b took %v: SetLink must override the default", atB)
	}
}

func TestRebind(t *testing.T) {
	n := New(1)
	n.SetDefault(LinkConfig{Latency: 10 * time.Millisecond})
	cli, srv := mustListen(t, n, addrA), mustListen(t, n, addrB)
	buf := make([]byte, 64)

	cli.WriteTo([]byte("hello"), srv.Addr())
	n.Advance(10 * time.Millisecond)
	_, from, ok := srv.ReadFrom(buf)
	if !ok || from != addrA {
		t.Fatalf("server saw %v %v", from, ok)
	}
	srv.WriteTo([]byte("in flight to old port"), from)
	if err := cli.Rebind(addrB); !errors.Is(err, ErrAddrInUse) {
		t.Fatalf("rebind onto a used address: %v", err)
	}
	if err := cli.Rebind(addrA2); err != nil {
		t.Fatal(err)
	}
	if cli.Addr() != addrA2 {
		t.Fatalf("Addr %v after rebind", cli.Addr())
	}
	srv.WriteTo([]byte("sent to old port"), addrA)
	cli.WriteTo([]byte("after rebind"), srv.Addr())
	n.Advance(10 * time.Millisecond)
	if _, _, ok := cli.ReadFrom(buf); ok {
		t.Fatal("client received a packet sent to its old address")
	}
	if st := n.Stats(); st.DroppedUnbound != 2 {
		t.Fatalf("DroppedUnbound %d, want 2", st.DroppedUnbound)
	}
	k, from, ok := srv.ReadFrom(buf)
	if !ok || from != addrA2 || string(buf[:k]) != "after rebind" {
		t.Fatalf("server saw %q from %v", buf[:k], from)
	}
	srv.WriteTo([]byte("reply"), from)
	n.Advance(10 * time.Millisecond)
	if k, _, ok := cli.ReadFrom(buf); !ok || string(buf[:k]) != "reply" {
		t.Fatal("client did not receive the reply at its new address")
	}
	// the old address is free again
	if _, err := n.Listen(addrA); err != nil {
		t.Fatal(err)
	}
}

func TestUnboundAddress(t *testing.T) {
	n := New(1)
	a := mustListen(t, n, addrA)
	a.WriteTo([]byte("x"), addrC)
	a.WriteTo([]byte("y"), addrC)
	n.Advance(time.Millisecond)
	if st := n.Stats(); st.DroppedUnbound != 2 || st.Delivered != 0 || n.inFlight() != 0 {
		t.Fatalf("stats %+v", st)
	}
}

func TestInboxOverflow(t *testing.T) {
	n := New(1)
	n.SetInboxLimit(4)
	a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
	for range 10 {
		a.WriteTo([]byte("x"), b.Addr())
	}
	n.Advance(time.Millisecond)
	if b.Pending() != 4 {
		t.Fatalf("pending %d", b.Pending())
	}
	if st := n.Stats(); st.DroppedInbox != 6 || st.Delivered != 4 {
		t.Fatalf("stats %+v", st)
	}
}

func TestEndpointErrors(t *testing.T) {
	n := New(1)
	a := mustListen(t, n, addrA)
	if _, err := n.Listen(addrA); !errors.Is(err, ErrAddrInUse) {
		t.Errorf("listen twice: %v", err)
	}
	if _, err := n.Listen(netip.AddrPort{}); !errors.Is(err, ErrInvalidAddr) {
		t.Errorf("listen on zero address: %v", err)
	}
	if err := a.WriteTo([]byte("x"), netip.AddrPort{}); !errors.Is(err, ErrInvalidAddr) {
		t.Errorf("write to zero address: %v", err)
	}
	b := mustListen(t, n, addrB)
	a.WriteTo([]byte("x"), b.Addr())
	n.Advance(0)
	if b.Pending() != 1 {
		t.Fatal("zero-latency packet not delivered by Advance(0)")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("close twice: %v", err)
	}
	if err := b.WriteTo([]byte("x"), a.Addr()); !errors.Is(err, ErrClosed) {
		t.Errorf("write after close: %v", err)
	}
	if err := b.Rebind(addrC); !errors.Is(err, ErrClosed) {
		t.Errorf("rebind after close: %v", err)
	}
	if _, _, ok := b.ReadFrom(make([]byte, 8)); ok {
		t.Error("read after close")
	}
	// truncation like UDP
	c := mustListen(t, n, addrB)
	a.WriteTo([]byte("abcdef"), c.Addr())
	n.Advance(0)
	buf := make([]byte, 3)
	if k, from, ok := c.ReadFrom(buf); !ok || k != 3 || string(buf) != "abc" || from != addrA {
		t.Errorf("truncated read %d %q %v %v", k, buf, from, ok)
	}
	// time never goes back
	n.AdvanceTo(time.Second)
	n.AdvanceTo(time.Millisecond)
	if n.Now() != time.Second {
		t.Errorf("Now %v after going back", n.Now())
	}
	if err := (LinkConfig{Loss: 1.5}).Validate(); err == nil {
		t.Error("Validate accepted loss 1.5")
	}
	if err := (LinkConfig{Jitter: -1}).Validate(); err == nil {
		t.Error("Validate accepted negative jitter")
	}
}

func TestWriteCopies(t *testing.T) {
	n := New(1)
	a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
	p := []byte("original")
	a.WriteTo(p, b.Addr())
	copy(p, "MUTATED!")
	n.Advance(0)
	buf := make([]byte, 16)
	if k, _, _ := b.ReadFrom(buf); string(buf[:k]) != "original" {
		t.Errorf("got %q: WriteTo must copy", buf[:k])
	}
}

func TestDropFilter(t *testing.T) {
	n := New(1)
	a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
	third := 0
	n.SetDropFilter(func(from, to netip.AddrPort, p []byte) bool {
		third++
		return from == addrA && third == 3
	})
	for i := range 5 {
		a.WriteTo([]byte{byte(i)}, b.Addr())
	}
	n.Advance(0)
	var got []byte
	buf := make([]byte, 4)
	for {
		_, _, ok := b.ReadFrom(buf)
		if !ok {
			break
		}
		got = append(got, buf[0])
	}
	if !slices.Equal(got, []byte{0, 1, 3, 4}) || n.Stats().Filtered != 1 {
		t.Errorf("got %v, stats %+v", got, n.Stats())
	}
}

// TestSteadyStateAllocs: once buffers and packets are pooled, a send,
// delivery and read cycle allocates nothing.
func TestSteadyStateAllocs(t *testing.T) {
	n := New(9)
	n.SetDefault(LinkConfig{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond,
		Loss: 0.05, Duplicate: 0.05, Reorder: 0.05, Bandwidth: 10_000_000})
	a, b := mustListen(t, n, addrA), mustListen(t, n, addrB)
	p := make([]byte, 200)
	buf := make([]byte, 2048)
	cycle := func() {
		for range 32 {
			a.WriteTo(p, b.Addr())
		}
		n.Advance(time.Millisecond)
		for {
			if _, _, ok := b.ReadFrom(buf); !ok {
				break
			}
		}
	}
	for range 200 { // warm the pools
		cycle()
	}
	if allocs := testing.AllocsPerRun(500, cycle); allocs != 0 {
		t.Errorf("%.1f allocations per 32-packet cycle", allocs)
	}
}

// BenchmarkNetwork measures packets per second through a lossy, jittery,
// rate-limited link: send, schedule, deliver and read.
func BenchmarkNetwork(b *testing.B) {
	n := New(9)
	n.SetDefault(LinkConfig{Latency: 20 * time.Millisecond, Jitter: 5 * time.Millisecond,
		Loss: 0.05, Duplicate: 0.01, Reorder: 0.01, Bandwidth: 1_000_000_000})
	src, dst := mustListen(b, n, addrA), mustListen(b, n, addrB)
	p := make([]byte, 200)
	buf := make([]byte, 2048)
	const batch = 64
	step := func() {
		for range batch {
			src.WriteTo(p, dst.Addr())
		}
		n.Advance(100 * time.Microsecond)
		for {
			if _, _, ok := dst.ReadFrom(buf); !ok {
				break
			}
		}
	}
	for range 400 { // fill the link (25 ms in flight) and the pools
		step()
	}
	b.ReportAllocs()
	packets := 0
	for b.Loop() {
		step()
		packets += batch
	}
	b.ReportMetric(float64(packets)/b.Elapsed().Seconds(), "packets/s")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(packets), "ns/packet")
}
