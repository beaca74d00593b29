package servermetrics

import (
	"bytes"
	"context"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/expfmt"

	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/server"
)

// hostCore is an EndedSource over a host core driven in virtual time; it
// keeps the counters of the matches it ends, as serve does.
type hostCore struct {
	host  *server.Host
	now   time.Duration
	stats serverhook.Stats
	tot   server.Totals
}

func (c *hostCore) DoHost(_ context.Context, f func(time.Duration, *server.Host)) bool {
	f(c.now, c.host)
	return true
}
func (c *hostCore) ReadStats() (received, dropped uint64)    { return 0, 0 }
func (c *hostCore) Ended() (serverhook.Stats, server.Totals) { return c.stats, c.tot }

func (c *hostCore) end(t *testing.T, name string) {
	s := c.host.Match(name)
	if err := c.host.End(c.now, name); err != nil {
		t.Fatal(err)
	}
	AddStats(&c.stats, serverhook.ServerStats(s))
	AddTotals(&c.tot, s.Totals())
}

// newHostCore returns a host running n matches named "1".."n" of the test
// game, advanced to 1 s.
func newHostCore(t *testing.T, n int) *hostCore {
	t.Helper()
	h, err := server.NewHost(server.Config{}, server.SendFunc(func(netip.AddrPort, []byte) {}))
	if err != nil {
		t.Fatal(err)
	}
	c := &hostCore{host: h}
	for i := 1; i <= n; i++ {
		if _, err := h.Create(0, strconv.Itoa(i), server.Config{}, testgame.New(), testgame.DefaultSettings); err != nil {
			t.Fatal(err)
		}
	}
	c.advance(time.Second)
	return c
}

func (c *hostCore) advance(to time.Duration) {
	for c.now = c.host.Next(); c.now <= to; c.now = c.host.Next() {
		c.host.Advance(c.now)
	}
}

// exposition is the registry's text format, as /metrics serves it.
func exposition(t *testing.T, reg *prometheus.Registry) string {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, mf := range mfs {
		if _, err := expfmt.MetricFamilyToText(&b, mf); err != nil {
			t.Fatal(err)
		}
	}
	return b.String()
}

// Many matches in one process (serve --matches): each match's figures
// under its "match" label, the process's totals the sum over the matches
// and those ended (a counter never goes back when a match ends), and the
// exposition passes promtool.
func TestCollectorMatches(t *testing.T) {
	c := newHostCore(t, 3)
	reg := prometheus.NewRegistry()
	reg.MustRegister(New(c))
	first := scrape(t, reg)
	if first["snapwire_matches"] != 3 {
		t.Errorf("snapwire_matches = %v, want 3", first["snapwire_matches"])
	}
	sum := 0.0
	for _, m := range []string{"1", "2", "3"} {
		f, ok := first["snapwire_match_frames_total "+m]
		if !ok || f < 60 {
			t.Errorf("match %s: frames %v (present %v)", m, f, ok)
		}
		if _, ok := first["snapwire_match_clients "+m]; !ok {
			t.Errorf("match %s: no clients gauge", m)
		}
		sum += f
	}
	if first["snapwire_frames_total"] != sum {
		t.Errorf("process frames %v, the matches' sum %v", first["snapwire_frames_total"], sum)
	}

	c.end(t, "2")
	c.advance(2 * time.Second)
	second := scrape(t, reg)
	if second["snapwire_matches"] != 2 {
		t.Errorf("after ending match 2: snapwire_matches = %v", second["snapwire_matches"])
	}
	if _, ok := second["snapwire_match_frames_total 2"]; ok {
		t.Error("the ended match 2 is still exported")
	}
	want := first["snapwire_match_frames_total 2"] + second["snapwire_match_frames_total 1"] + second["snapwire_match_frames_total 3"]
	if got := second["snapwire_frames_total"]; got != want || got < first["snapwire_frames_total"] {
		t.Errorf("process frames after the end %v, want %v (and at least %v)", got, want, first["snapwire_frames_total"])
	}
	promtoolCheck(t, exposition(t, reg))
}

// The series a process of 128 matches exports (the figure the package
// doc quotes): 6 a match and the process's own 86 (histogram buckets
// included), 854 in all.
func TestCollectorSeriesAt128Matches(t *testing.T) {
	count := func(n int) int {
		reg := prometheus.NewRegistry()
		reg.MustRegister(New(newHostCore(t, n)))
		lines := 0
		for _, l := range strings.Split(exposition(t, reg), "\n") {
			if l != "" && l[0] != '#' {
				lines++
			}
		}
		return lines
	}
	one, many := count(1), count(128)
	if perMatch := (many - one) / 127; perMatch != 6 || (many-one)%127 != 0 {
		t.Errorf("%d series at 1 match, %d at 128: %d a match, want 6", one, many, perMatch)
	}
	if process := one - 6; process != 86 {
		t.Errorf("the process's own series (histogram buckets included): %d, the package doc says 86", process)
	}
	t.Logf("series: %d at 1 match, %d at 128", one, many)
}

// promtoolCheck runs promtool check metrics on text, skipping without
// promtool (Debian prometheus) unless SNAPWIRE_REQUIRE_PROMTOOL=1.
func promtoolCheck(t *testing.T, text string) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("SNAPWIRE_REQUIRE_PROMTOOL") == "1" {
			t.Fatal("promtool not installed (Debian prometheus) and SNAPWIRE_REQUIRE_PROMTOOL=1")
		}
		t.Skip("promtool not installed (apt-get install prometheus): the exposition is not checked")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(text)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out.String())
	}
}
