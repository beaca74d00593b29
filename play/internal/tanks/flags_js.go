//go:build js

package main

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"syscall/js"
	"time"
)

// main, in the browser, is the page's program: it joins the server that
// served the page over a WebRTC data channel (its /rtc) and, when the game
// ends, writes the summary into <pre id="stats"> (the page of
// cmd/internal/web). Its options come from the query string:
// autoplay=1 (a bot drives the player's tank), duration=SECONDS (0 or
// absent: until the tab closes).
func main() {
	var out []byte
	opt, err := queryOptions()
	if err == nil {
		var sum summary
		sum, err = run(opt)
		if err == nil || sum.State != "" {
			out, _ = json.Marshal(sum)
		}
	}
	if out == nil {
		out, _ = json.Marshal(map[string]string{"error": err.Error()})
	}
	doc := js.Global().Get("document")
	if el := doc.Call("getElementById", "stats"); el.Truthy() {
		el.Set("textContent", string(out))
	}
}

func queryOptions() (options, error) {
	loc := js.Global().Get("location")
	q, err := url.ParseQuery(strings.TrimPrefix(loc.Get("search").String(), "?"))
	if err != nil {
		return options{}, fmt.Errorf("query: %w", err)
	}
	opt := options{connect: loc.Get("origin").String() + "/rtc", autoplay: q.Get("autoplay") == "1"}
	if d := q.Get("duration"); d != "" {
		secs, err := strconv.ParseFloat(d, 64)
		if err != nil || secs < 0 || secs > 24*3600 {
			return options{}, fmt.Errorf("duration %q: want seconds, 0..86400", d)
		}
		opt.duration = time.Duration(secs * float64(time.Second))
	}
	return opt, nil
}
