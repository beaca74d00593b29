//go:build !js

package playview

import "errors"

// dialBrowser is the browser's data channel, which only a js/wasm build
// has (remote_js.go).
func dialBrowser(url string, deliver func(p []byte)) (Link, error) {
	return nil, errors.New("a signalling URL needs WebRTC: in a browser (js/wasm), or natively through a WebDialer; a native program on package play dials UDP")
}
