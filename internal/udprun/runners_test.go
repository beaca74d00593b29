package udprun_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/session"
	"github.com/snapwire/snapwire/internal/testgame"
	"github.com/snapwire/snapwire/internal/testwait"
	"github.com/snapwire/snapwire/server"
)

// The two runners built on Loop keep their documented endings over real
// sockets on 127.0.0.1: a client's Run returns the reason it was
// disconnected, first for a refused connect, then for a server shutting
// down (server.Run's cancellation sends the disconnects).
func TestRunnersDisconnectReasons(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*testwait.Hang)
	defer cancel()
	srv, err := server.Listen("127.0.0.1:0", server.Config{Password: "pw"}, testgame.New(), testgame.DefaultSettings)
	if err != nil {
		t.Fatal(err)
	}
	sctx, stopServer := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Run(sctx) }()
	input := client.InputFunc(func(client.Input) game.UserCmd { return game.UserCmd{} })

	run := func(password string) (*client.Runner, chan error) {
		r, err := client.Dial(srv.Addr().String(), client.Config{Password: password}, testgame.New(), input)
		if err != nil {
			t.Fatal(err)
		}
		res := make(chan error, 1)
		go func() { res <- r.Run(ctx) }()
		return r, res
	}
	wantReason := func(what string, res chan error, want session.Reason) {
		t.Helper()
		select {
		case err := <-res:
			var ref *client.RefusedError
			if !errors.As(err, &ref) || ref.Reason != client.Reason(want) {
				t.Errorf("%s: Run = %v, want reason %v", what, err, want)
			}
		case <-ctx.Done():
			t.Fatalf("%s: client Run did not return", what)
		}
	}

	_, res := run("wrong")
	wantReason("wrong password", res, session.ReasonWrongPassword)

	r, res := run("pw")
	var st client.Stats
	if !testwait.Until(testwait.Hang, func() bool {
		r.Do(ctx, func(_ time.Duration, c *client.Client) { st = c.Stats() })
		return st.SnapshotsReceived >= 3
	}) {
		t.Fatalf("no snapshots: %+v", st)
	}
	stopServer()
	if err := <-served; err != nil {
		t.Errorf("server Run = %v", err)
	}
	wantReason("server shutdown", res, session.ReasonShutdown)
	if r.Do(ctx, func(time.Duration, *client.Client) {}) {
		t.Error("Do after the client's Run returned true")
	}
}

// server.Runner and client.Runner release their sockets with Close when
// Run never ran, and report no write errors on a healthy socket.
//
// Guards against: Close not reaching the socket (the port stays bound).
func TestRunnersClose(t *testing.T) {
	r, err := server.Listen("127.0.0.1:0", server.Config{}, testgame.New(), testgame.DefaultSettings)
	if err != nil {
		t.Fatal(err)
	}
	addr := r.Addr()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	again, err := net.ListenUDP("udp4", net.UDPAddrFromAddrPort(addr))
	if err != nil {
		t.Fatalf("server port still held after Close: %v", err)
	}
	again.Close()
	c, err := client.Dial(addr.String(), client.Config{}, testgame.New(), client.InputFunc(func(in client.Input) game.UserCmd { return game.UserCmd{} }))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n, last := c.WriteErrors(); n != 0 || last != nil {
		t.Errorf("write errors %d, %v", n, last)
	}
}
