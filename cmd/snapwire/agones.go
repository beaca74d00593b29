package main

// "serve --agones": the server reports to the Agones SDK sidecar through
// package agones, on goroutines of its own: the game loop never waits for
// the sidecar.

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"time"

	"github.com/snapwire/snapwire/agones"
	"github.com/snapwire/snapwire/internal/netaddr"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/server"
)

// mapLabel is the GameServer label an allocation may set to choose the
// arena (arena settings, as --map takes them).
const mapLabel = "snapwire-map"

// playerID names a client for Agones player tracking: the client id of
// its connect token (the backend's player id) on a secure server, else
// its connection.
func playerID(c *server.ClientStats) string {
	if c.Secure {
		return strconv.FormatUint(c.TokenClientID, 10)
	}
	return "conn-" + strconv.Itoa(int(c.ConnID))
}

// startAgones runs the Agent until ctx ends; stop waits for its Shutdown
// (bounded).
func startAgones(ctx context.Context, o serveOptions, r *server.Runner, logger *slog.Logger) (stop func()) {
	url, _ := agones.FromEnv()
	c := agones.New(url)
	c.OnRetry = func(path string, err error) { logger.Warn("agones", "call", path, "err", err) }
	var buf []server.ClientStats
	a := &agones.Agent{
		Client:   c,
		Capacity: o.maxClients * max(1, o.matches),
		Labels:   map[string]string{"snapwire-slots": strconv.Itoa(o.maxClients * max(1, o.matches))},
		// The process as a whole: the players of every match (--matches).
		Players: func() []string {
			var ids []string
			r.DoHost(ctx, func(_ time.Duration, h *server.Host) {
				for _, name := range h.Matches() {
					buf = h.Match(name).AppendClients(buf[:0])
					for i := range buf {
						ids = append(ids, playerID(&buf[i]))
					}
				}
			})
			return ids
		},
		OnAllocated: func(gs agones.GameServer) {
			settings, ok := gs.ObjectMeta.Labels[mapLabel]
			if !ok {
				return
			}
			if _, err := refgame.ParseConfig(settings); err != nil {
				logger.Warn("agones: allocation label", "label", mapLabel, "value", settings, "err", err)
				return
			}
			// Every match's map (--matches N: the allocation is the
			// process's).
			r.DoHost(ctx, func(_ time.Duration, h *server.Host) {
				for _, name := range h.Matches() {
					if err := h.Match(name).ChangeMap(settings); err != nil {
						logger.Warn("agones: map from the allocation", "match", name, "settings", settings, "err", err)
					}
				}
			})
		},
		Log: func(msg string, args ...any) { logger.Info(msg, args...) },
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := a.Run(ctx, 3*time.Second); err != nil {
			logger.Warn("agones", "err", err)
		}
	}()
	logger.Info("agones", "sidecar", url)
	return func() {
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			logger.Warn("agones: shutdown not confirmed by the sidecar")
		}
	}
}

// agonesAddrWait bounds serve's wait for the GameServer's address and
// port before it opens its socket.
const agonesAddrWait = 30 * time.Second

// agonesPublicAddr is the address players reach this server at under
// Agones: the GameServer's status address with its port named "default"
// (else its first), the host port a Dynamic (or Passthrough) port policy
// assigned. Connect tokens name the server by it, so serve adds it to the
// public addresses before it accepts a connect. It waits, polling every
// interval, until the sidecar reports the address (a GameServer gets it
// when its pod is scheduled, its ports when it is created) or ctx ends;
// false for a GameServer without ports (port policy None).
func agonesPublicAddr(ctx context.Context, c *agones.Client, interval time.Duration) (netip.AddrPort, bool, error) {
	for {
		gs, err := c.GameServer(ctx)
		if err == nil && gs.Status.Address != "" && len(gs.Status.Ports) == 0 {
			return netip.AddrPort{}, false, nil
		}
		if err == nil && gs.Status.Address != "" {
			port := gs.Status.Ports[0].Port
			for _, p := range gs.Status.Ports {
				if p.Name == "default" {
					port = p.Port
					break
				}
			}
			if port <= 0 || port > 65535 {
				return netip.AddrPort{}, false, fmt.Errorf("agones: GameServer port %d", port)
			}
			ap, err := netaddr.Resolve(net.JoinHostPort(gs.Status.Address, strconv.Itoa(int(port))))
			if err != nil {
				return netip.AddrPort{}, false, fmt.Errorf("agones: GameServer address: %w", err)
			}
			return ap, true, nil
		}
		select {
		case <-ctx.Done():
			return netip.AddrPort{}, false, fmt.Errorf("agones: the GameServer has no address after %v: %w", agonesAddrWait, ctx.Err())
		case <-time.After(interval):
		}
	}
}

// addAgonesPublicAddr adds the GameServer's public address to cfg's.
func addAgonesPublicAddr(ctx context.Context, cfg *server.Config, logger *slog.Logger) error {
	url, _ := agones.FromEnv()
	ctx, cancel := context.WithTimeout(ctx, agonesAddrWait)
	defer cancel()
	ap, ok, err := agonesPublicAddr(ctx, agones.New(url), 500*time.Millisecond)
	if err != nil || !ok {
		return err
	}
	cfg.PublicAddrs = append(cfg.PublicAddrs, ap)
	logger.Info("agones", "public_addr", ap.String())
	return nil
}
