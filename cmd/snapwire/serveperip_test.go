package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// --max-clients-per-ip: 4 by default, 1..1024, and it reaches the server
// config (TestSecureSquattersLeaveSlots in package server shows what it
// does to a secure server).
func TestServeMaxClientsPerIPFlag(t *testing.T) {
	base := "--listen 127.0.0.1:0 --insecure "
	o, err := parseServeFlags(strings.Fields(base))
	if err != nil || o.maxPerIP != 4 {
		t.Errorf("default: %d, %v", o.maxPerIP, err)
	}
	if o, err := parseServeFlags(strings.Fields(base + "--max-clients-per-ip 16")); err != nil || o.maxPerIP != 16 {
		t.Errorf("16: %d, %v", o.maxPerIP, err)
	}
	for _, v := range []string{"0", "-1", "1025"} {
		if _, err := parseServeFlags(strings.Fields(base + "--max-clients-per-ip " + v)); err == nil {
			t.Errorf("--max-clients-per-ip %s accepted", v)
		}
	}
}

// --reconnect-grace: 20 s by default, 0 turns the hold off (the server's
// negative setting), 0..10m, and it reaches the server config.
func TestServeReconnectGraceFlag(t *testing.T) {
	base := "--listen 127.0.0.1:0 --insecure "
	for _, c := range []struct {
		flags string
		want  time.Duration
	}{{"", 20 * time.Second}, {"--reconnect-grace 45s", 45 * time.Second}, {"--reconnect-grace 0", -1}} {
		o, err := parseServeFlags(strings.Fields(base + c.flags))
		if err != nil {
			t.Fatalf("%q: %v", c.flags, err)
		}
		cfg, err := serveConfig(o, newLogger("text", io.Discard))
		if err != nil || cfg.ReconnectGrace != c.want {
			t.Errorf("%q: ReconnectGrace %v, %v; want %v", c.flags, cfg.ReconnectGrace, err, c.want)
		}
	}
	for _, v := range []string{"-1s", "11m"} {
		if _, err := parseServeFlags(strings.Fields(base + "--reconnect-grace " + v)); err == nil {
			t.Errorf("--reconnect-grace %s accepted", v)
		}
	}
}
