//go:build js

package play

import "time"

// startPump steps the session from a 60 Hz timer between frames. In a
// browser requestAnimationFrame paces Update, so a slow renderer (WebGL
// on the CPU: SwiftShader in headless Chromium drew about 5 frames a
// second on a loaded 2-core machine) would slow the client's network with
// it — its commands, acknowledgements and snapshot handling — and a hidden
// tab, which gets no frames at all, would time out on the server. Timers
// keep running in a hidden tab (throttled to once a second, within the
// server's 10 s timeout).
func startPump(w *window) (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(time.Second / 60)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			w.mu.Lock()
			if !w.done {
				w.step(time.Since(w.start))
			}
			w.mu.Unlock()
		}
	}()
	return func() { close(done) }
}
