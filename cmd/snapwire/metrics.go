package main

// "serve --metrics ADDR [--pprof]": Prometheus metrics (package
// servermetrics) over HTTP, and Go's profiles when asked.

import (
	"context"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/snapwire/snapwire/cmd/internal/servermetrics"
)

// serveMetrics serves /metrics (the server's metrics and the Go runtime's
// and process's) and, with withPprof, /debug/pprof/ on ln until stop.
func serveMetrics(ln net.Listener, src servermetrics.Source, withPprof bool) (stop func()) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(servermetrics.New(src),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	if withPprof {
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/cmdline", pprofCmdline) // not pprof.Cmdline: it shows --password
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}
}
