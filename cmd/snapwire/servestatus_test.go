package main

import (
	"bytes"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/q3/query"
	"github.com/snapwire/snapwire/server"
)

// The status line at 128 matches is one line at info level, the matches'
// slots summed; each match's own line is at debug level with its name.
// The default match alone keeps the line of before --matches.
func TestServeStatusLines(t *testing.T) {
	o, err := parseServeFlags(strings.Fields("--insecure --matches 128 --max-clients 8"))
	if err != nil {
		t.Fatal(err)
	}
	settings, _ := serveSettings(o)
	h, err := server.NewHost(server.Config{}, server.SendFunc(func(netip.AddrPort, []byte) {}))
	if err != nil {
		t.Fatal(err)
	}
	hm := newHostedMatches(o, server.Config{})
	for i := 1; i <= o.matches; i++ {
		if _, err := hm.create(0, h, matchName(i), settings, o.maxClients); err != nil {
			t.Fatal(err)
		}
	}
	lines := func(level string, h *server.Host) []string {
		var b bytes.Buffer
		l := &serveLog{log: newLevelLogger("text", level, &b), hm: hm}
		h.Advance(time.Second)
		l.status(time.Second, h)
		return strings.Split(strings.TrimSpace(b.String()), "\n")
	}
	info := lines("info", h)
	if len(info) != 1 || !strings.Contains(info[0], "msg=status matches=128 clients=0 slots=1024 ") {
		t.Errorf("info: %q", info)
	}
	debug := lines("debug", h)
	if len(debug) != 129 || !strings.Contains(debug[127], "level=DEBUG msg=status match=128 frame=60 clients=0 slots=8 ") {
		t.Errorf("debug: %d lines, the 128th %q", len(debug), debug[min(127, len(debug)-1)])
	}

	one, err := server.NewHost(server.Config{}, server.SendFunc(func(netip.AddrPort, []byte) {}))
	if err != nil {
		t.Fatal(err)
	}
	hm = newHostedMatches(o, server.Config{})
	if _, err := hm.create(0, one, "", settings, 8); err != nil {
		t.Fatal(err)
	}
	if l := lines("debug", one); len(l) != 1 || !strings.Contains(l[0], "level=INFO msg=status frame=60 clients=0 slots=8 ") {
		t.Errorf("the default match alone: %q", l)
	}
}

// The Quake 3 answers are the process's: every match's slots summed (and
// players, the same way; internal/q3/query stops adding players at the
// packet's size).
func TestServeQueryWholeProcess(t *testing.T) {
	o, err := parseServeFlags(strings.Fields("--insecure --matches 3 --max-clients 4"))
	if err != nil {
		t.Fatal(err)
	}
	settings, _ := serveSettings(o)
	h, err := server.NewHost(server.Config{}, server.SendFunc(func(netip.AddrPort, []byte) {}))
	if err != nil {
		t.Fatal(err)
	}
	hm := newHostedMatches(o, server.Config{})
	qs := newQueryStatus(o, settings, hm)
	for i, slots := range []int{4, 4, 2} {
		if _, err := hm.create(0, h, matchName(i+1), settings, slots); err != nil {
			t.Fatal(err)
		}
	}
	qs.refresh(h)
	var st query.Status
	qs.fill(&st)
	if st.MaxClients != 10 || len(st.Players) != 0 || st.MapName != "arena3x3" {
		t.Errorf("status: %d slots, %d players, map %q", st.MaxClients, len(st.Players), st.MapName)
	}
}
