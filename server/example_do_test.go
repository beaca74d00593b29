package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/snapwire/snapwire/examples/guide"
	"github.com/snapwire/snapwire/server"
)

// An HTTP status handler reads a running server, and the game's world,
// through Runner.Do: the closure runs on the goroutine that owns the
// server (between its frames and packets), copies out what the page
// shows, and the handler writes it after Do returns. Reading the server
// or the world directly from the handler's goroutine would race with the
// frames (go test -race finds it).
func ExampleRunner_Do() {
	world := guide.New()
	srv, err := server.Listen("127.0.0.1:0", server.Config{}, world, "")
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Run(ctx)

	status := func(w http.ResponseWriter, r *http.Request) {
		var clients []server.ClientStats
		var dots []int32
		ok := srv.Do(r.Context(), func(now time.Duration, s *server.Server) {
			clients = s.AppendClients(clients)
			for _, e := range world.Entities() {
				dots = append(dots, e.(*guide.Dot).X)
			}
		})
		if !ok {
			http.Error(w, "server stopped", http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, "clients: %d, dots: %v\n", len(clients), dots)
	}
	rec := httptest.NewRecorder()
	status(rec, httptest.NewRequest("GET", "/status", nil))
	fmt.Print(rec.Body)
	// Output:
	// clients: 0, dots: []
}
