package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/server"
)

// noSource is a servermetrics.Source whose server does not run.
type noSource struct{}

func (noSource) DoHost(context.Context, func(time.Duration, *server.Host)) bool { return false }
func (noSource) ReadStats() (uint64, uint64)                                    { return 0, 0 }

// Acceptance (issue 22, item 8): "serve --metrics ADDR --pprof" serves
// /debug/pprof/cmdline without the values of the flags that carry
// secrets, in either flag form, and keeps the rest of the command line.
//
// Guards against: net/http/pprof's Cmdline, which echoes os.Args with
// --password in it to anyone who reaches the metrics port.
func TestPprofCmdlineRedactsSecrets(t *testing.T) {
	saved := os.Args
	t.Cleanup(func() { os.Args = saved })
	os.Args = []string{"snapwire", "serve", "--password", "hunter2", "-password=hunter3", "--key-file", "/etc/snapwire.key",
		"--token=tok123", "--web-tokens", "--listen", "127.0.0.1:0"}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := serveMetrics(ln, noSource{}, true)
	defer stop()
	resp, err := http.Get("http://" + ln.Addr().String() + "/debug/pprof/cmdline")
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET cmdline: %d %v", resp.StatusCode, err)
	}
	for _, secret := range []string{"hunter2", "hunter3", "/etc/snapwire.key", "tok123"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("cmdline shows %q: %q", secret, b)
		}
	}
	got := strings.Split(string(b), "\x00")
	want := []string{"snapwire", "serve", "--password", "REDACTED", "-password=REDACTED", "--key-file", "REDACTED",
		"--token=REDACTED", "--web-tokens", "--listen", "127.0.0.1:0"}
	if !slices.Equal(got, want) {
		t.Errorf("cmdline %q, want %q", got, want)
	}
}

func TestRedactArgs(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{nil, []string{}},
		{[]string{"x", "--password"}, []string{"x", "--password"}}, // no value to hide
		{[]string{"--password", "--insecure"}, []string{"--password", "REDACTED"}},
		{[]string{"--password="}, []string{"--password=REDACTED"}},
		{[]string{"---password", "p"}, []string{"---password", "p"}}, // not a flag Go's flag package reads
		{[]string{"-", "--", "password", "p"}, []string{"-", "--", "password", "p"}},
		{[]string{"--web-tokens", "--hostname", "h"}, []string{"--web-tokens", "--hostname", "h"}},
	} {
		if got := redactArgs(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("redactArgs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
