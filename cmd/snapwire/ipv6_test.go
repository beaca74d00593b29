package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"regexp"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/server"
)

// Acceptance (issue 25, IPv6 and names): serve --listen [::1]:0 (secure),
// then bot --connect [::1]:P and bot --connect localhost:P (localhost's
// 127.0.0.1 first: the bot takes the address where the server answers),
// and load --connect localhost:P, each with tokens from the key file:
// every one plays.
func TestServeBotIPv6(t *testing.T) {
	acceptance.Require(t, "ipv6")
	if c, err := net.ListenUDP("udp6", &net.UDPAddr{IP: net.IPv6loopback}); err != nil {
		t.Skipf("no IPv6 loopback (::1) on this machine: %v", err)
	} else {
		c.Close()
	}
	keyFile := writeKeyFile(t)
	o, err := parseServeFlags([]string{"--key-file", keyFile, "--listen", "[::1]:0", "--status", "0"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, o, pw); pw.Close() }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	sc := bufio.NewScanner(pr)
	listening := regexp.MustCompile(`msg=listening addr=\[::1\]:(\d+)`)
	var port string
	for port == "" && sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			port = m[1]
		}
	}
	if port == "" {
		t.Fatal("serve never logged its [::1] address")
	}
	go io.Copy(io.Discard, pr) // the server's later log lines
	for _, addr := range []string{"[::1]:" + port, "localhost:" + port} {
		var out bytes.Buffer
		err := playBot(ctx, botOptions{connect: addr, keyFile: keyFile, name: "bot", seed: 1, duration: 2 * time.Second,
			mode: refgame.BotDeathmatch, json: true}, &out)
		var sum botSummary
		if jerr := json.Unmarshal(out.Bytes(), &sum); err != nil || jerr != nil || sum.SnapshotsReceived < 30 || sum.BaseChecks == 0 {
			t.Errorf("bot --connect %s: %v, %v, %s", addr, err, jerr, out.String())
		}
	}
	var out bytes.Buffer
	if err := load(ctx, loadOptions{clients: 4, connect: "localhost:" + port, keyFile: keyFile, duration: 2 * time.Second,
		cmdRate: 60, ramp: 2 * time.Millisecond}, &out); err != nil {
		t.Errorf("load --connect localhost:%s: %v\n%s", port, err, out.String())
	}
	t.Log(out.String())
}

// proxy --to localhost:P reaches a snapwire server listening on ::1 only.
func TestHostNamesProxyIPv6Server(t *testing.T) {
	srv, err := server.Listen("[::1]:0", server.Config{}, refgame.NewGame(), refgame.Config{}.String())
	if err != nil {
		t.Skipf("no IPv6 loopback (::1) on this machine: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()
	defer func() { cancel(); <-done }()
	opt, err := parseProxyFlags([]string{"--listen", "localhost:0", "--to", fmt.Sprintf("localhost:%d", srv.Addr().Port())}, io.Discard)
	if err != nil || opt.cfg.Target != srv.Addr() {
		t.Errorf("proxy --to localhost:%d: target %v, %v; want %v", srv.Addr().Port(), opt.cfg.Target, err, srv.Addr())
	}
}
