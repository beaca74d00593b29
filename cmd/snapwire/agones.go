package main

// "serve --agones": the server reports to the Agones SDK sidecar through
// package agones, on goroutines of its own: the game loop never waits for
// the sidecar.

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/snapwire/snapwire/agones"
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
		Capacity: o.maxClients,
		Labels:   map[string]string{"snapwire-slots": strconv.Itoa(o.maxClients)},
		Players: func() []string {
			var ids []string
			r.Do(ctx, func(_ time.Duration, s *server.Server) {
				buf = s.AppendClients(buf[:0])
				for i := range buf {
					ids = append(ids, playerID(&buf[i]))
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
			r.Do(ctx, func(_ time.Duration, s *server.Server) {
				if err := s.ChangeMap(settings); err != nil {
					logger.Warn("agones: map from the allocation", "settings", settings, "err", err)
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
