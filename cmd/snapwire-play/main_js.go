//go:build play && js

// In the browser (GOOS=js GOARCH=wasm), snapwire-play is the page
// "snapwire serve --web" serves at /play: the same session and window,
// over a WebRTC data channel to the server that served the page. Its
// options come from the page's query string: autoplay=1 (a bot drives
// the player), duration=SECONDS (0 or absent: play until the tab
// closes), name=NAME, interpolate=1, graph=0, match=NAME (the match of
// a server that hosts many, through the token /token hands out: "serve
// --matches" with --web-tokens). When the game ends the
// summary ("snapwire play --json"'s) is written into <pre id="stats">.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"
	"time"

	"github.com/snapwire/snapwire/cmd/internal/play"
	"github.com/snapwire/snapwire/cmd/internal/play/window"
)

func main() {
	sum, err := run()
	var out []byte
	if err != nil {
		out, _ = json.Marshal(map[string]string{"error": err.Error()})
	} else {
		out, _ = json.MarshalIndent(sum, "", "  ")
	}
	doc := js.Global().Get("document")
	if el := doc.Call("getElementById", "stats"); el.Truthy() {
		el.Set("textContent", string(out))
	}
	js.Global().Get("console").Call("log", "snapwire play: "+string(out))
}

func run() (play.Summary, error) {
	loc := js.Global().Get("location")
	q, err := url.ParseQuery(trimQ(loc.Get("search").String()))
	if err != nil {
		return play.Summary{}, fmt.Errorf("query: %w", err)
	}
	a := play.Args{Session: play.DefaultOptions()}
	a.Session.Connect = loc.Get("origin").String() + "/rtc"
	a.Session.Name = "browser"
	if n := q.Get("name"); n != "" {
		a.Session.Name = n
	}
	a.Session.Autoplay = q.Get("autoplay") == "1"
	a.Interp = q.Get("interpolate") == "1"
	a.NoGraph = q.Get("graph") == "0"
	if d := q.Get("duration"); d != "" {
		secs, err := strconv.ParseFloat(d, 64)
		if err != nil || secs < 0 || secs > 24*3600 {
			return play.Summary{}, fmt.Errorf("duration %q: want seconds, 0..86400", d)
		}
		a.Window.Duration = time.Duration(secs * float64(time.Second))
	}
	a.Token = q.Get("token")
	if a.Token == "" {
		// A secure server started with --web-tokens hands one out; any
		// other answers 404 and the client joins without.
		tokenURL := loc.Get("origin").String() + "/token"
		if m := q.Get("match"); m != "" {
			tokenURL += "?match=" + url.QueryEscape(m)
		}
		tok, err := fetchToken(tokenURL)
		if err != nil {
			return play.Summary{}, err
		}
		a.Token = tok
	}
	s, err := play.Start(a)
	if err != nil {
		return play.Summary{}, err
	}
	werr := window.Run(s, a.Window)
	sum := s.Summary()
	if err := s.Close(); err != nil && sum.Error == "" {
		sum.Error = err.Error()
	}
	if werr != nil && sum.Error == "" {
		sum.Error = werr.Error()
	}
	return sum, nil
}

// fetchToken gets a connect token from the server, "" when it hands out
// none (404).
func fetchToken(url string) (string, error) {
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return "", nil
	case err != nil:
		return "", fmt.Errorf("token: %w", err)
	case resp.StatusCode != http.StatusOK:
		return "", fmt.Errorf("token: %s", resp.Status)
	}
	return strings.TrimSpace(string(b)), nil
}

func trimQ(s string) string {
	if len(s) > 0 && s[0] == '?' {
		return s[1:]
	}
	return s
}
