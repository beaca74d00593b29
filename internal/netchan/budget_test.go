package netchan

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestSendBudget: a sender that sends SendBudget's bytes whenever it is
// positive keeps to the rate (within 5% over 10 s), every budget is one
// CanSend allows, one byte more is refused unless the bucket is full, the
// budget never exceeds the burst, and it counts fragments (budgets above
// the MTU), encryption and the outstanding reliable bytes.
//
// Guards against: a budget the limiter then refuses (the server would build
// a snapshot to it and skip it), a budget that lets the rate be exceeded.
func TestSendBudget(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rate    int
		secure  bool
		relEach int // reliable bytes queued before each send
	}{
		{"one packet", 20000, false, 0},
		{"fragments", 200000, false, 0},
		{"secure with reliable", 60000, true, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Rate: tc.rate}
			if tc.secure {
				cfg.Keys = &Keys{Send: [32]byte{1}, Recv: [32]byte{2}}
			}
			c := New(cfg, 1)
			rng := rand.New(rand.NewPCG(5, 5))
			buf := make([]byte, 64<<10)
			for i := range buf {
				buf[i] = byte(rng.Uint32()) // incompressible
			}
			wire, sends := 0, 0
			const dur = 10 * time.Second
			for now := time.Duration(0); now < dur; now += 5 * time.Millisecond {
				if tc.relEach > 0 && c.rel.wireLen() < 200 {
					if err := c.QueueReliable(buf[:tc.relEach]); err != nil {
						t.Fatal(err)
					}
				}
				b := c.SendBudget(now)
				if b <= 0 {
					continue
				}
				if b > c.cfg.Burst {
					t.Fatalf("budget %d above the burst %d", b, c.cfg.Burst)
				}
				if !c.CanSend(now, b) {
					t.Fatalf("at %v: budget %d refused by CanSend", now, b)
				}
				full := c.clear <= now-c.burst
				if !full && c.CanSend(now, b+c.cfg.MTU) {
					t.Fatalf("at %v: budget %d is an MTU short of what CanSend allows", now, b)
				}
				if err := c.Send(now, 1, buf[:b], func(p []byte) { wire += len(p) + UDPIPOverhead }); err != nil {
					t.Fatal(err)
				}
				sends++
			}
			got := float64(wire) / dur.Seconds()
			t.Logf("rate %d B/s: measured %.0f B/s in %d sends", tc.rate, got, sends)
			if got > float64(tc.rate)*1.05 || got < float64(tc.rate)*0.8 {
				t.Fatalf("measured %.0f B/s, want at most 5%% over and 20%% under %d", got, tc.rate)
			}
		})
	}
	if b := New(Config{}, 1).SendBudget(0); b != -1 {
		t.Fatalf("unlimited channel's budget %d, want -1", b)
	}
}
