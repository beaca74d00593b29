package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image/color"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/cmd/internal/rtc"
	"github.com/snapwire/snapwire/cmd/internal/web"
	"github.com/snapwire/snapwire/examples/tanks"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/internal/serverhook"
	"github.com/snapwire/snapwire/internal/snapshot"
	"github.com/snapwire/snapwire/internal/statecheck"
	"github.com/snapwire/snapwire/server"
)

// tanksBrowserSummary is play/internal/tanks' summary as its page writes
// it into #stats: a remote session's, with its snapshots' samples for the
// server's state check.
type tanksBrowserSummary struct {
	Mode           string              `json:"mode"`
	State          string              `json:"state"`
	Error          string              `json:"error"`
	DurationS      float64             `json:"duration_s"`
	FramesDrawn    int                 `json:"frames_drawn"`
	ClientNum      int                 `json:"client_num"`
	Snapshots      uint64              `json:"snapshots"`
	BaseChecks     uint64              `json:"base_checks"`
	BaseMismatches uint64              `json:"base_mismatches"`
	DecodeErrors   uint64              `json:"decode_errors"`
	ApplyErrors    uint64              `json:"apply_errors"`
	Samples        []statecheck.Sample `json:"samples"`
	PingMS         float64             `json:"ping_ms"`
	OtherTanks     int                 `json:"other_tanks"`
	Shells         int                 `json:"shells"`
	Sparks         int                 `json:"sparks"`
	Score          int32               `json:"score"`
	Feed           []string            `json:"feed"`
	Chat           []string            `json:"chat"`
}

// The tanks' colours (play/internal/tanks/draw.go).
var (
	tanksField = color.RGBA{24, 48, 32, 255}
	tanksCrate = color.RGBA{176, 120, 56, 255}
	tanksSelf  = color.RGBA{0, 200, 255, 255}
	tanksOther = color.RGBA{255, 80, 64, 255}
)

// tanksRecordFrames is how many frames of the server's states the test
// keeps for the state check: 273 s at 60 Hz, longer than the test runs.
const tanksRecordFrames = 1 << 14

// tanksBot is a UDP bot of the tanks match: the game's own bot
// (tanks.Game.BotCommand) and the samples of its snapshots.
type tanksBot struct {
	r       *client.Runner
	g       *tanks.Game
	samples []statecheck.Sample // on the bot's goroutine until it returns
	err     error
}

// The second example game in headless Chromium: a tanks server (the
// game's OnMessage and Announce wired as its netsim test does, 30
// snapshots a second, the common base verified) with the WebRTC transport
// serving play/internal/tanks built for js/wasm on cmd/internal/web's
// page, two UDP bots (tanks.Game.BotCommand), and Chromium playing
// /play?autoplay=1&duration=20: the page's client joins over a WebRTC
// data channel and the game's bot drives it for 20 s. Its summary must
// show 300+ snapshots, no base mismatch or decode error, frames drawn by
// WebGL (a screenshot shows the field, crates and the player's tank),
// and its chat line back in its feed (the other tanks it saw are
// reported only: whether it meets one is the bots' driving); the server's
// recorded states must equal every snapshot's states the browser and the
// bots decoded (internal/statecheck), and each bot must have heard the
// browser's chat line. Skipped without chromium unless
// SNAPWIRE_REQUIRE_CHROMIUM=1.
func TestTanksBrowser(t *testing.T) {
	acceptance.Require(t, "browser")
	if testing.Short() {
		t.Skip("builds the wasm and runs Chromium for 20 s")
	}
	exe := findChromium(t)
	dir := t.TempDir()
	wasmFile := filepath.Join(dir, "tanks.wasm")
	build := exec.Command("go", "build", "-o", wasmFile, "../../play/internal/tanks")
	build.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build (js/wasm): %v\n%s", err, out)
	}
	wasm, err := os.ReadFile(wasmFile)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srvGame := tanks.New()
	rec := statecheck.NewRecorder(tanksRecordFrames)
	cfg := serverhook.With(server.Config{OnMessage: srvGame.ServerMessage, MaxClients: 4, SnapshotRate: 30,
		Advanced: server.Advanced{VerifyBase: true}},
		serverhook.Hooks{OnFrame: func(f game.Frame) { rec.Record(f, srvGame) }})
	r, err := server.Listen("127.0.0.1:0", cfg, srvGame, "")
	if err != nil {
		t.Fatal(err)
	}
	rs, err := rtc.Attach(serverhook.Host(r), rtc.Config{HostIPs: []netip.Addr{netip.MustParseAddr("127.0.0.1")}, MaxPeers: 2})
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	defer rs.Close()
	srvCtx, stopSrv := context.WithCancel(ctx)
	srvDone := make(chan error, 1)
	go func() { srvDone <- r.Run(srvCtx) }()
	defer func() {
		stopSrv()
		if err := <-srvDone; err != nil {
			t.Errorf("server: %v", err)
		}
	}()
	r.Do(ctx, func(_ time.Duration, s *server.Server) { srvGame.Announce = s.BroadcastMessage })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: web.Ready(web.Assets{WASM: wasm}, rs), ReadHeaderTimeout: 5 * time.Second}
	go hs.Serve(ln)
	defer hs.Close()
	base := "http://" + ln.Addr().String()

	// Two UDP bots, playing until the browser is done.
	botCtx, stopBots := context.WithCancel(ctx)
	defer stopBots()
	var wg sync.WaitGroup
	bots := make([]*tanksBot, 2)
	for i := range bots {
		b := &tanksBot{g: tanks.New()}
		bcfg := client.Config{Name: fmt.Sprintf("bot%d", i), OnMessage: b.g.ClientMessage}
		sc := statecheck.NewClient()
		clienthook.Set(&bcfg, clienthook.Hooks{OnSnapshot: func(s *snapshot.Snapshot) {
			b.samples = append(b.samples, sc.Sample(s.Header.Frame, b.g, &s.PVS))
		}})
		if b.r, err = client.Dial(r.Addr().String(), bcfg, b.g, client.InputFunc(b.g.BotCommand)); err != nil {
			t.Fatal(err)
		}
		bots[i] = b
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.err = b.r.Run(botCtx)
		}()
	}

	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, chromiumFlags(exe, filepath.Join(dir, "profile"))...)
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(actx)
	defer cancelBrowser()
	t0 := time.Now()
	if err := chromedp.Do(bctx, chromedp.Navigate(base+"/play?autoplay=1&duration=20"), chromedp.Sleep(12*time.Second)); err != nil {
		t.Fatalf("chromium: navigate: %v", err)
	}
	// Screenshots during play, until one shows the field, crates and the
	// player's tank (which may be destroyed for a moment).
	var drew bool
	for i := 0; i < 10 && !drew; i++ {
		shot, err := chromedp.Run(bctx, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatalf("chromium: screenshot: %v", err)
		}
		drew = drewTanks(t, shot)
		if p := os.Getenv("SNAPWIRE_TANKS_BROWSER_PNG"); p != "" && (drew || i == 0) {
			os.WriteFile(p, shot, 0o644)
		}
		time.Sleep(time.Second)
	}
	if !drew {
		t.Error("no screenshot showed the field, the crates and the player's tank: WebGL did not draw the game")
	}
	stats, err := chromedp.Run(bctx, chromedp.Poll[string](
		`(() => { const t = document.getElementById("stats").textContent; return t.length > 0 ? t : null; })()`,
		chromedp.WithPollingTimeout(90*time.Second), chromedp.WithPollingInterval(500*time.Millisecond)))
	if err != nil {
		t.Fatalf("chromium: waiting for #stats: %v", err)
	}
	var sum tanksBrowserSummary
	if err := json.Unmarshal([]byte(stats), &sum); err != nil {
		t.Fatalf("#stats: %v\n%s", err, stats)
	}
	samples := sum.Samples
	sum.Samples = nil
	t.Logf("browser summary (page loaded and played in %v): %+v", time.Since(t0).Round(time.Millisecond), sum)
	// 20 s at 30 snapshots a second, less the connection. Frames drawn:
	// WebGL runs on SwiftShader (the CPU); on the shared 2-core machine at
	// load 13-14 the page drew 40 frames in 20 s (2 a second), and the
	// arena's (TestBrowserPlay) 31 beside it, so the bound catches a page
	// that does not draw, not a slow machine. Base checks follow the
	// acknowledgements, fewer at a low frame rate (57 in that run).
	// Whether the browser's tank meets another depends on the bots'
	// driving, not on the network: the spawn points are farther apart
	// than ViewRange and a bot that circles into a crate stays out of
	// sight (a CI run: OtherTanks 0, Score 0, every other check passed).
	// Other players' entities reaching a browser are TestBrowserPlay's
	// check; here OtherTanks is reported only.
	if sum.Error != "" || sum.Mode != "webrtc" || sum.State != "connected" || sum.Snapshots < 250 || sum.BaseChecks < 20 ||
		sum.BaseMismatches != 0 || sum.DecodeErrors != 0 || sum.ApplyErrors != 0 || sum.FramesDrawn < 20 || sum.DurationS < 20 {
		t.Errorf("browser summary: %+v", sum)
	}
	t.Logf("the browser saw %d other tanks and %d shells", sum.OtherTanks, sum.Shells)
	chat := fmt.Sprintf("player %d: gl hf", sum.ClientNum)
	if !slices.Contains(sum.Chat, chat) {
		t.Errorf("the browser's chat %q lacks its line %q", sum.Chat, chat)
	}

	stopBots()
	wg.Wait()
	// The state check, on the server's goroutine, which records its
	// states: every snapshot the browser and the bots decoded.
	var counts [3]statecheck.Counts
	var first [3]error
	check := func(i int, ss []statecheck.Sample) {
		for _, s := range ss {
			if err := counts[i].Add(s, rec.Check(s)); err != nil && first[i] == nil {
				first[i] = err
			}
		}
	}
	r.Do(ctx, func(time.Duration, *server.Server) {
		check(0, samples)
		for i, b := range bots {
			check(i+1, b.samples)
		}
	})
	for i, who := range []string{"browser", "bot0", "bot1"} {
		t.Logf("%s: state checks %+v", who, counts[i])
		if counts[i].Mismatches != 0 || counts[i].Unchecked != 0 || counts[i].Checks < 250 {
			t.Errorf("%s: state checks %+v, first mismatch: %v", who, counts[i], first[i])
		}
	}
	for i, b := range bots {
		var st client.Stats
		var ctr clienthook.Counters
		b.r.After(func(c *client.Client) { st, ctr = c.Stats(), clienthook.CountersOf(c) })
		t.Logf("bot%d: %d snapshots, base checks %d (%d mismatches), feed %q", i, st.SnapshotsReceived, ctr.BaseChecks,
			ctr.BaseMismatches, b.g.Feed)
		if b.err != nil || ctr.BaseMismatches != 0 || ctr.DecodeErrors != 0 || !slices.Contains(b.g.Chat, chat) {
			t.Errorf("bot%d (%v): base mismatches %d, decode errors %d, chat %q without the browser's %q",
				i, b.err, ctr.BaseMismatches, ctr.DecodeErrors, b.g.Chat, chat)
		}
	}
	if peers := rs.Stats(); peers.Opened == 0 {
		t.Errorf("no WebRTC peer: %+v", peers)
	}
}

// drewTanks reports whether a screenshot shows the tanks drawn by WebGL:
// the field, crates and the player's tank, in their colours.
func drewTanks(t *testing.T, b []byte) bool {
	t.Helper()
	count, r := colourCount(t, b)
	t.Logf("screenshot %v: %d colours, field %d px, crates %d px, player %d px, others %d px", r, len(count),
		count[tanksField], count[tanksCrate], count[tanksSelf], count[tanksOther])
	return count[tanksField] >= 1000 && count[tanksCrate] >= 4*100 && count[tanksSelf] >= 10 && len(count) >= 8
}
