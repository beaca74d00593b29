//go:build !js

package play

// startPump does nothing outside the browser: the window's Update runs at
// the display's rate, which does not depend on how fast frames render.
func startPump(w *window) (stop func()) { return func() {} }
