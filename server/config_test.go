package server

import (
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/netchan"
	"github.com/snapwire/snapwire/internal/serverhook"
)

// Config.Rate is each client's byte rate: a client held to 300 bytes a
// second (less than 20 snapshots a second take) has snapshots skipped
// that an unlimited one gets. The hooks' whole channel configuration
// (serverhook.Hooks.Channel) applies its Rate when Config.Rate is 0, and
// Config.Rate replaces it otherwise.
//
// Guards against: Rate not reaching the clients' channels, or the hooks'
// channel configuration overriding the public setting.
func TestConfigRate(t *testing.T) {
	run := func(cfg Config) (sent, skipped uint64) {
		t.Helper()
		s, _, _, _ := connected(t, cfg)
		s.Advance(2 * time.Second)
		cs, ok := s.Client(0)
		if !ok {
			t.Fatal("the client is gone")
		}
		return cs.SnapshotsSent, cs.SnapshotsSkipped
	}
	if sent, skipped := run(Config{}); skipped != 0 || sent < 35 {
		t.Errorf("unlimited: %d snapshots sent, %d skipped", sent, skipped)
	}
	if sent, skipped := run(Config{Rate: 300}); skipped == 0 || sent == 0 {
		t.Errorf("300 B/s: %d snapshots sent, %d skipped", sent, skipped)
	}
	slow := serverhook.Hooks{Channel: netchan.Config{Rate: 300}}
	if _, skipped := run(serverhook.With(Config{}, slow)); skipped == 0 {
		t.Error("the hooks' channel rate of 300 B/s skipped no snapshot")
	}
	if _, skipped := run(serverhook.With(Config{Rate: 1 << 20}, slow)); skipped != 0 {
		t.Errorf("Config.Rate of 1 MiB/s: %d snapshots skipped (the hooks' rate applied)", skipped)
	}
}
