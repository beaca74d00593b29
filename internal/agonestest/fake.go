// Package agonestest is a fake Agones SDK sidecar for snapwire's tests: an
// httptest server speaking the REST endpoints package agones uses, which
// records every call in order, streams the GameServer on
// /watch/gameserver, and can be made to fail (503) to simulate an
// outage.
package agonestest

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
)

// Fake is a fake sidecar.
type Fake struct {
	*httptest.Server
	mu      sync.Mutex
	calls   []string
	failing bool
	failed  int
	state   string
	labels  map[string]string
	changed chan struct{} // closed and replaced on every GameServer change
	// address and ports are the GameServer's status address and ports
	// (name: port).
	address string
	ports   map[string]int
}

// New starts a fake sidecar; Close it when done.
func New() *Fake {
	f := &Fake{state: "Scheduled", labels: map[string]string{}, changed: make(chan struct{}), address: "127.0.0.1"}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// Calls returns the calls so far, each "METHOD /path body" (body
// compacted, "{}" dropped), in order; failed calls are not recorded.
func (f *Fake) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// Failed is the number of calls answered 503 while failing.
func (f *Fake) Failed() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// SetFailing makes every call (but the watch stream) answer 503 until
// called again with false.
func (f *Fake) SetFailing(on bool) {
	f.mu.Lock()
	f.failing = on
	f.mu.Unlock()
}

// Allocate moves the GameServer to Allocated with the given labels, as a
// GameServerAllocation does.
func (f *Fake) Allocate(labels map[string]string) {
	f.mu.Lock()
	f.state = "Allocated"
	for k, v := range labels {
		f.labels[k] = v
	}
	f.notify()
	f.mu.Unlock()
}

// SetAddress sets the GameServer's status address and its ports by name,
// as Agones does when it schedules the pod and assigns host ports (a
// Dynamic port policy); the default is 127.0.0.1 and no ports. An empty
// address is a GameServer whose pod is not scheduled yet.
func (f *Fake) SetAddress(address string, ports map[string]int) {
	f.mu.Lock()
	f.address, f.ports = address, ports
	f.notify()
	f.mu.Unlock()
}

func (f *Fake) notify() {
	close(f.changed)
	f.changed = make(chan struct{})
}

func (f *Fake) gameServer() map[string]any {
	labels := map[string]string{}
	for k, v := range f.labels {
		labels[k] = v
	}
	status := map[string]any{"state": f.state, "address": f.address}
	if len(f.ports) > 0 {
		var ports []map[string]any
		for _, name := range slices.Sorted(maps.Keys(f.ports)) {
			ports = append(ports, map[string]any{"name": name, "port": f.ports[name]})
		}
		status["ports"] = ports
	}
	return map[string]any{
		"object_meta": map[string]any{"name": "snapwire-test", "labels": labels},
		"status":      status,
	}
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/watch/gameserver" {
		f.watch(w, r)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.failing {
		f.failed++
		http.Error(w, "sidecar down", http.StatusServiceUnavailable)
		return
	}
	call := r.Method + " " + r.URL.Path
	if b := strings.TrimSpace(string(body)); b != "" && b != "{}" {
		call += " " + b
	}
	f.calls = append(f.calls, call)
	switch r.URL.Path {
	case "/ready":
		f.state = "Ready"
		f.notify()
	case "/shutdown":
		f.state = "Shutdown"
		f.notify()
	case "/allocate":
		f.state = "Allocated"
		f.notify()
	case "/metadata/label":
		var kv struct{ Key, Value string }
		if json.Unmarshal(body, &kv) == nil {
			f.labels["agones.dev/sdk-"+kv.Key] = kv.Value
		}
	case "/gameserver":
		json.NewEncoder(w).Encode(f.gameServer())
		return
	case "/alpha/player/connect", "/alpha/player/disconnect":
		fmt.Fprint(w, `{"bool":true}`)
		return
	}
	fmt.Fprint(w, "{}")
}

// watch streams the GameServer: now, and after every change, until the
// client goes away.
func (f *Fake) watch(w http.ResponseWriter, r *http.Request) {
	fl, _ := w.(http.Flusher)
	for {
		f.mu.Lock()
		b, _ := json.Marshal(map[string]any{"result": f.gameServer()})
		ch := f.changed
		f.mu.Unlock()
		if _, err := fmt.Fprintf(w, "%s\n", b); err != nil {
			return
		}
		if fl != nil {
			fl.Flush()
		}
		select {
		case <-r.Context().Done():
			return
		case <-ch:
		}
	}
}
