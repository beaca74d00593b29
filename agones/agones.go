// Package agones is a small client of the Agones game server SDK's REST
// sidecar (Agones, the Kubernetes game-server engine: "SDK: REST", served
// by the sidecar on localhost at AGONES_SDK_HTTP_PORT, default 9358), and
// an Agent that keeps a running match and Agones in step.
//
// Client wraps the documented endpoints a dedicated server needs: POST
// /ready, /health, /shutdown; PUT /metadata/label; GET /gameserver and the streamed GET
// /watch/gameserver; and the player-tracking calls POST
// /alpha/player/connect and /alpha/player/disconnect and PUT
// /alpha/player/capacity. Every call is retried with exponential backoff
// until it succeeds or its context ends.
//
// Agent runs beside the game loop, never on it: it marks the server Ready,
// sends Health at an interval, reports players by comparing the match's
// current players with what it has told Agones (so an outage of the
// sidecar loses no connect or disconnect: the difference is sent when it
// comes back), watches the GameServer to notice Allocated and hand over
// its labels, and sends Shutdown when the match ends.
package agones

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"time"
)

// defaultPort is the sidecar's HTTP port when AGONES_SDK_HTTP_PORT is not
// set (Agones documentation, "SDK: REST").
const defaultPort = 9358

// EnvPort is the environment variable Agones sets to the sidecar's HTTP
// port in a GameServer's pod.
const EnvPort = "AGONES_SDK_HTTP_PORT"

// FromEnv returns the sidecar's base URL from the environment and whether
// AGONES_SDK_HTTP_PORT was set.
func FromEnv() (string, bool) {
	p, ok := os.LookupEnv(EnvPort)
	if !ok {
		return fmt.Sprintf("http://localhost:%d", defaultPort), false
	}
	if _, err := strconv.Atoi(p); err != nil {
		return fmt.Sprintf("http://localhost:%d", defaultPort), false
	}
	return "http://localhost:" + p, true
}

// GameServer is the part of the GameServer resource the client reads.
type GameServer struct {
	ObjectMeta struct {
		Name        string            `json:"name"`
		Labels      map[string]string `json:"labels"`
		Annotations map[string]string `json:"annotations"`
	} `json:"object_meta"`
	Status struct {
		State string `json:"state"` // Scheduled, RequestReady, Ready, Allocated, Shutdown, ...
		// Address is the node's address players reach the server at, and
		// Ports the ports Agones assigned it by name: with a Dynamic
		// port policy a host port chosen when the GameServer is created,
		// so clients reach Address:Port while the process listens on its
		// container port (Agones, "GameServer Specification", portPolicy).
		Address string `json:"address"`
		Ports   []struct {
			Name string `json:"name"`
			Port int32  `json:"port"`
		} `json:"ports"`
	} `json:"status"`
}

// Client calls the sidecar. A failed call is retried after Backoff [100
// ms], doubled after each failure up to 2 s.
type Client struct {
	baseURL string
	http    *http.Client
	Backoff time.Duration
	// OnRetry, when set, is told of every failed attempt (for logs).
	OnRetry func(path string, err error)
}

// maxBackoff bounds the wait between two attempts of a call.
const maxBackoff = 2 * time.Second

// New returns a client of the sidecar at baseURL ("http://localhost:9358").
func New(baseURL string) *Client {
	return &Client{baseURL: baseURL, http: &http.Client{Timeout: 5 * time.Second}}
}

// ErrStatus is a non-2xx answer of the sidecar.
var ErrStatus = errors.New("agones: sidecar answered")

// maxBody bounds what is read of an answer.
const maxBody = 1 << 20

// do sends one request, retrying with backoff until it succeeds or ctx
// ends; out, if not nil, receives the JSON answer.
func (c *Client) do(ctx context.Context, method, path string, body any, out any) error {
	payload := []byte("{}")
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	wait := c.Backoff
	if wait <= 0 {
		wait = 100 * time.Millisecond
	}
	for {
		err := c.once(ctx, method, path, payload, out)
		if err == nil || ctx.Err() != nil {
			return err
		}
		if c.OnRetry != nil {
			c.OnRetry(path, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("agones: %s %s: %w (last error: %v)", method, path, ctx.Err(), err)
		case <-time.After(wait):
		}
		wait = min(2*wait, maxBackoff)
	}
}

func (c *Client) once(ctx context.Context, method, path string, payload []byte, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%w %s to %s %s", ErrStatus, resp.Status, method, path)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("agones: %s %s: %w", method, path, err)
		}
	}
	return nil
}

// Ready marks the server ready for players (POST /ready).
func (c *Client) Ready(ctx context.Context) error { return c.do(ctx, "POST", "/ready", nil, nil) }

// Health is the health ping (POST /health).
func (c *Client) Health(ctx context.Context) error { return c.do(ctx, "POST", "/health", nil, nil) }

// Shutdown asks Agones to shut the server down (POST /shutdown).
func (c *Client) Shutdown(ctx context.Context) error { return c.do(ctx, "POST", "/shutdown", nil, nil) }

type keyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// SetLabel sets a label on the GameServer (PUT /metadata/label; Agones
// prefixes the key with "agones.dev/sdk-").
func (c *Client) SetLabel(ctx context.Context, key, value string) error {
	return c.do(ctx, "PUT", "/metadata/label", keyValue{key, value}, nil)
}

type playerID struct {
	PlayerID string `json:"playerID"`
}

// PlayerConnect reports a player (POST /alpha/player/connect).
func (c *Client) PlayerConnect(ctx context.Context, id string) error {
	return c.do(ctx, "POST", "/alpha/player/connect", playerID{id}, nil)
}

// PlayerDisconnect reports a player gone (POST /alpha/player/disconnect).
func (c *Client) PlayerDisconnect(ctx context.Context, id string) error {
	return c.do(ctx, "POST", "/alpha/player/disconnect", playerID{id}, nil)
}

// SetPlayerCapacity sets the player capacity (PUT /alpha/player/capacity).
func (c *Client) SetPlayerCapacity(ctx context.Context, n int) error {
	return c.do(ctx, "PUT", "/alpha/player/capacity", struct {
		Count string `json:"count"` // int64 as a JSON string (proto3 JSON)
	}{strconv.Itoa(n)}, nil)
}

// GameServer reads the GameServer (GET /gameserver).
func (c *Client) GameServer(ctx context.Context) (GameServer, error) {
	var gs GameServer
	err := c.do(ctx, "GET", "/gameserver", nil, &gs)
	return gs, err
}

// Watch streams the GameServer (GET /watch/gameserver: one JSON object
// {"result": GameServer} per line) to f until ctx ends, reconnecting with
// backoff when the stream breaks.
func (c *Client) Watch(ctx context.Context, f func(GameServer)) error {
	wait := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := c.watchOnce(ctx, f)
		if ctx.Err() != nil {
			break
		}
		if c.OnRetry != nil {
			c.OnRetry("/watch/gameserver", err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, maxBackoff)
	}
	return ctx.Err()
}

func (c *Client) watchOnce(ctx context.Context, f func(GameServer)) error {
	req, err := http.NewRequestWithContext(ctx, "GET", c.baseURL+"/watch/gameserver", nil)
	if err != nil {
		return err
	}
	// The stream has no timeout of its own: the client's would cut it.
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%w %s to GET /watch/gameserver", ErrStatus, resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), maxBody)
	for sc.Scan() {
		var ev struct {
			Result GameServer `json:"result"`
		}
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return fmt.Errorf("agones: watch: %w", err)
		}
		f(ev.Result)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return io.ErrUnexpectedEOF
}

// Agent keeps a match and Agones in step; see the package doc.
type Agent struct {
	Client *Client
	// Players returns the IDs of the players in the match now; the Agent
	// calls it every Interval from its own goroutine (a server reads its
	// clients through Runner.Do).
	Players func() []string
	// Capacity is the player capacity reported at start (0: not set).
	Capacity int
	// Labels are set on the GameServer at start.
	Labels map[string]string
	// OnAllocated is called once, from the watch goroutine, when the
	// GameServer first reports Allocated, with the GameServer (its labels
	// may name a map or a mode).
	OnAllocated func(GameServer)
	// HealthInterval [2s] and Interval (player reports) [500ms].
	HealthInterval, Interval time.Duration
	// Log, when set, is told of what the agent does and of failures.
	Log func(msg string, args ...any)
}

func (a *Agent) log(msg string, args ...any) {
	if a.Log != nil {
		a.Log(msg, args...)
	}
}

// Run marks the server Ready and keeps health and players reported until
// ctx ends; then it reports the players gone and sends Shutdown (bounded
// by shutdownTimeout). It returns the error of Ready if that never
// succeeds before ctx ends.
func (a *Agent) Run(ctx context.Context, shutdownTimeout time.Duration) error {
	hi, pi := a.HealthInterval, a.Interval
	if hi <= 0 {
		hi = 2 * time.Second
	}
	if pi <= 0 {
		pi = 500 * time.Millisecond
	}
	c := a.Client
	if a.Capacity > 0 {
		if err := c.SetPlayerCapacity(ctx, a.Capacity); err != nil {
			return err
		}
	}
	keys := make([]string, 0, len(a.Labels))
	for k := range a.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if err := c.SetLabel(ctx, k, a.Labels[k]); err != nil {
			return err
		}
	}
	if err := c.Ready(ctx); err != nil {
		return err
	}
	a.log("agones: ready")
	watchDone := make(chan struct{})
	go func() {
		defer close(watchDone)
		allocated := false
		c.Watch(ctx, func(gs GameServer) {
			if gs.Status.State == "Allocated" && !allocated {
				allocated = true
				a.log("agones: allocated", "gameserver", gs.ObjectMeta.Name)
				if a.OnAllocated != nil {
					a.OnAllocated(gs)
				}
			}
		})
	}()
	reported := map[string]bool{}
	health := time.NewTicker(hi)
	defer health.Stop()
	players := time.NewTicker(pi)
	defer players.Stop()
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-health.C:
			// One attempt per tick: a sidecar outage must not pile up
			// health calls; the next tick tries again.
			if err := c.once(ctx, "POST", "/health", []byte("{}"), nil); err != nil && ctx.Err() == nil {
				a.log("agones: health", "err", err)
			}
		case <-players.C:
			a.reconcile(ctx, reported)
		}
	}
	<-watchDone
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	for id := range reported {
		if c.once(sctx, "POST", "/alpha/player/disconnect", mustJSON(playerID{id}), nil) == nil {
			delete(reported, id)
		}
	}
	if err := c.Shutdown(sctx); err != nil {
		return err
	}
	a.log("agones: shutdown")
	return nil
}

// reconcile reports the players that came and went since the last
// successful report. Each call is one attempt; what fails is tried again
// on the next tick.
func (a *Agent) reconcile(ctx context.Context, reported map[string]bool) {
	if a.Players == nil {
		return
	}
	now := map[string]bool{}
	for _, id := range a.Players() {
		now[id] = true
	}
	ids := make([]string, 0, len(now)+len(reported))
	for id := range reported {
		if !now[id] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := a.Client.once(ctx, "POST", "/alpha/player/disconnect", mustJSON(playerID{id}), nil); err != nil {
			a.log("agones: player disconnect", "player", id, "err", err)
			return
		}
		delete(reported, id)
	}
	ids = ids[:0]
	for id := range now {
		if !reported[id] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		if err := a.Client.once(ctx, "POST", "/alpha/player/connect", mustJSON(playerID{id}), nil); err != nil {
			a.log("agones: player connect", "player", id, "err", err)
			return
		}
		reported[id] = true
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
