package main

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/snapwire/snapwire/cmd/internal/play"
	"github.com/snapwire/snapwire/internal/acceptance"
)

// findChromium returns the path of a Chromium or Chrome binary, or skips
// (fails with SNAPWIRE_REQUIRE_CHROMIUM=1, as .ci/run sets once it has
// installed Debian's chromium).
func findChromium(tb testing.TB) string {
	tb.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no chromium on PATH: the browser test needs Debian's chromium (apt-get install chromium)"
	if os.Getenv("SNAPWIRE_REQUIRE_CHROMIUM") == "1" {
		tb.Fatal(msg + " (SNAPWIRE_REQUIRE_CHROMIUM=1)")
	}
	tb.Skip(msg)
	return ""
}

// chromiumFlags are headless Chromium's flags for this machine: no
// sandbox (root in a container), no GPU, so WebGL runs on SwiftShader,
// which newer Chromium allows only with --enable-unsafe-swiftshader;
// loopback ICE candidates allowed and not hidden behind mDNS names, so
// the data channel runs on 127.0.0.1; nothing fetched from the network.
func chromiumFlags(exe, profile string) []chromedp.ExecAllocatorOption {
	return []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.UserDataDir(profile),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("use-angle", "swiftshader"),
		chromedp.Flag("enable-unsafe-swiftshader", true),
		chromedp.Flag("ignore-gpu-blocklist", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-background-timer-throttling", true),
		chromedp.Flag("disable-renderer-backgrounding", true),
		chromedp.Flag("disable-backgrounding-occluded-windows", true),
		chromedp.Flag("allow-loopback-in-peer-connection", true),
		chromedp.Flag("disable-features", "WebRtcHideLocalIpsWithMdns"),
		chromedp.WindowSize(960, 600),
	}
}

var (
	webRE        = regexp.MustCompile(`msg=web url=(http://\S+)/play`)
	peerOpenRE   = regexp.MustCompile(`(msg="webrtc peer open".*)`)
	peerClosedRE = regexp.MustCompile(`msg="webrtc peer closed" (.*msgs_in=.*)`)
)

// browserSummary is the page's #stats: play's summary, or an error.
type browserSummary struct {
	play.Summary
	Error string `json:"error"`
}

// The browser half of "snapwire play": a real "snapwire serve --web"
// (insecure, as --insecure serves UDP; 30 snapshots/s so that 300 arrive
// in 20 s even when the page takes seconds to start; one room, so every
// player is always in every other's PVS) with two UDP bots,
// and headless Chromium loading /play?autoplay=1&duration=20: the wasm play client
// joins over a WebRTC data channel, a bot drives it for 20 s, and its
// summary appears in #stats. It must show 300+ snapshots, no base or
// state mismatch, frames drawn by WebGL (a screenshot shows the arena
// and the player), both bots seen moving; and each UDP bot must have seen
// the browser player move. Skipped without chromium unless
// SNAPWIRE_REQUIRE_CHROMIUM=1.
func TestBrowserPlay(t *testing.T) {
	acceptance.Require(t, "browser")
	if testing.Short() {
		t.Skip("builds the wasm and runs Chromium for 20 s")
	}
	exe := findChromium(t)
	dir := t.TempDir()
	wasm := filepath.Join(dir, "play.wasm")
	build := exec.Command("go", "build", "-tags", "play", "-o", wasm, "../snapwire-play")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build (js/wasm): %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	o, err := parseServeFlags([]string{"--listen", "127.0.0.1:0", "--web", "127.0.0.1:0", "--web-wasm", wasm, "--insecure",
		"--max-clients", "4", "--snaps", "30", "--status", "0s", "--map", "arena rooms=1x1 players=8"})
	if err != nil {
		t.Fatal(err)
	}
	var srvOut syncBuffer
	srvCtx, stopSrv := context.WithCancel(ctx)
	srvDone := make(chan error, 1)
	go func() { srvDone <- serve(srvCtx, o, &srvOut) }()
	defer func() {
		stopSrv()
		if err := <-srvDone; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	addr, base := waitMatch(&srvOut, listenRE, 10*time.Second), waitMatch(&srvOut, webRE, 10*time.Second)
	if addr == "" || base == "" {
		t.Fatalf("server did not start:\n%s", srvOut.String())
	}

	// Two UDP bots, playing until the browser is done.
	botCtx, stopBots := context.WithCancel(ctx)
	defer stopBots()
	var wg sync.WaitGroup
	botOuts := make([]bytes.Buffer, 2)
	botErrs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bo := botOptions{connect: addr, name: "udp" + string(rune('a'+i)), seed: uint64(7 + i), json: true}
			botErrs[i] = playBot(botCtx, bo, &botOuts[i])
		}()
	}

	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, chromiumFlags(exe, filepath.Join(dir, "profile"))...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	t0 := time.Now()
	fail := func(what string, err error) {
		t.Helper()
		t.Fatalf("chromium: %s: %v (after %v)\nserver:\n%s", what, err, time.Since(t0), srvOut.String())
	}
	if err := chromedp.Do(bctx, chromedp.Navigate(base+"/play?autoplay=1&duration=20"), chromedp.Sleep(8*time.Second)); err != nil {
		fail("navigate", err)
	}
	// Screenshots during play, until one shows the arena and the player
	// (who may be dead for a moment).
	var drew bool
	for i := 0; i < 10 && !drew; i++ {
		shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
		if err != nil {
			fail("screenshot", err)
		}
		drew = drewGame(t, shot)
		if p := os.Getenv("SNAPWIRE_BROWSER_PNG"); p != "" && (drew || i == 0) {
			os.WriteFile(p, shot, 0o644)
		}
		time.Sleep(time.Second)
	}
	if !drew {
		t.Error("no screenshot showed the arena and the player: WebGL did not draw the game")
	}
	stats, err := chromedp.Run(bctx, chromedp.Poll[string](
		`(() => { const t = document.getElementById("stats").textContent; return t.length > 0 ? t : null; })()`,
		chromedp.WithPollingTimeout(90*time.Second), chromedp.WithPollingInterval(500*time.Millisecond)))
	if err != nil {
		fail("waiting for #stats", err)
	}
	var sum browserSummary
	if err := json.Unmarshal([]byte(stats), &sum); err != nil {
		t.Fatalf("#stats: %v\n%s", err, stats)
	}
	t.Logf("browser summary (page loaded and played in %v): %s", time.Since(t0).Round(time.Millisecond), strings.Join(strings.Fields(stats), " "))
	// Frames: WebGL runs on SwiftShader (the CPU); on a shared 2-core
	// machine at load 8-11 the page drew 94-109 frames in 20 s while a
	// blank page's requestAnimationFrame ran at 58 Hz, so the bound is
	// low: it catches a page that does not draw, not a slow machine.
	// Base checks follow the acknowledgements, fewer at a low frame rate.
	if sum.Error != "" || sum.Mode != "webrtc" || sum.State != "connected" || sum.Snapshots < 300 || sum.BaseChecks < 50 ||
		sum.BaseMismatches != 0 || sum.StateMismatches != 0 || sum.DecodeErrors != 0 || sum.ApplyErrors != 0 ||
		sum.FramesDrawn < 50 || sum.OthersMoved != 2 || sum.DurationS < 20 {
		t.Errorf("browser summary: %+v", sum)
	}

	stopBots()
	wg.Wait()
	for i := range 2 {
		var bs botSummary
		if err := json.Unmarshal(botOuts[i].Bytes(), &bs); err != nil {
			t.Fatalf("bot %d: %v\n%s", i, err, botOuts[i].String())
		}
		t.Logf("bot %s: client %d, %d snapshots, base mismatches %d, saw players %v move", bs.Name, bs.ClientNum, bs.SnapshotsReceived, bs.BaseMismatches, bs.OthersMoved)
		if botErrs[i] != nil || bs.BaseMismatches != 0 || !slices.Contains(bs.OthersMoved, sum.ClientNum) {
			t.Errorf("bot %d (%v): did not see the browser player (client %d) move, or broke: %+v", i, botErrs[i], sum.ClientNum, bs)
		}
	}
	if !strings.Contains(srvOut.String(), "webrtc peer open") {
		t.Errorf("the server logged no WebRTC peer:\n%s", srvOut.String())
	}
	// The transport's cost, Chromium to pion: the server logs the peer's
	// messages and the datagrams pion's ICE counted when it closes.
	t.Logf("%s", waitMatch(&srvOut, peerOpenRE, time.Second))
	if line := waitMatch(&srvOut, peerClosedRE, 5*time.Second); line != "" {
		f := map[string]float64{}
		for _, kv := range strings.Fields(line) {
			k, v, _ := strings.Cut(kv, "=")
			f[k], _ = strconv.ParseFloat(v, 64)
		}
		msgs := f["msgs_in"] + f["msgs_out"]
		if dg := f["datagrams_in"] + f["datagrams_out"]; msgs > 0 && dg > 0 {
			over := (f["udp_bytes_in"] + f["udp_bytes_out"] - f["bytes_in"] - f["bytes_out"]) / msgs
			t.Logf("Chromium-pion channel: %.0f messages, %.0f datagrams (%.2f per message), %.1f bytes of DTLS+SCTP per message (+%.1f IPv4/UDP); %s",
				msgs, dg, dg/msgs, over, 28*dg/msgs, line)
		}
	}
}

// drewGame reports whether a screenshot shows the game drawn by WebGL:
// the arena's floor and the player, in their colours.
func drewGame(t *testing.T, b []byte) bool {
	t.Helper()
	count, r := colourCount(t, b)
	t.Logf("screenshot %v: %d colours, floor %d px, player %d px, others %d px", r, len(count),
		count[play.ColorFloor], count[play.ColorSelf], count[play.ColorOther])
	return count[play.ColorFloor] >= 1000 && count[play.ColorSelf] >= 10 && len(count) >= 8
}

// colourCount decodes a PNG screenshot and counts the pixels of each
// colour.
func colourCount(t *testing.T, b []byte) (map[color.RGBA]int, image.Rectangle) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	count := map[color.RGBA]int{}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			count[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	return count, r
}
