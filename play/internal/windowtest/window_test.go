// Package windowtest tests package play's window with a game other than
// the arena: play/internal/dots, built and run as a program, under Xvfb
// (Mesa's software renderer), and built for js/wasm. It imports neither
// Ebitengine nor package play, because a program that links Ebitengine
// stops at start-up without a display: the window runs in the child
// process only.
package windowtest

import (
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/playview"
)

// summary is dots' -json output.
type summary struct {
	State          string  `json:"state"`
	Error          string  `json:"error"`
	DurationS      float64 `json:"duration_s"`
	FramesDrawn    int     `json:"frames_drawn"`
	Snapshots      uint64  `json:"snapshots"`
	BaseChecks     uint64  `json:"base_checks"`
	BaseMismatches uint64  `json:"base_mismatches"`
	DecodeErrors   uint64  `json:"decode_errors"`
	PingMS         float64 `json:"ping_ms"`
}

// dots' colours (play/internal/dots/main.go) and its field's place.
var (
	colorField = color.RGBA{20, 34, 60, 255}
	colorSelf  = color.RGBA{0, 200, 255, 255}
	colorBall  = color.RGBA{255, 120, 200, 255}
	colorGhost = color.RGBA{255, 255, 255, 255}
	fieldR     = image.Rect(40, 50, 40+1200, 50+560)
)

// The logical screen of package play's window.
const screenW, screenH = 1280, 800

func goBuild(t *testing.T, env []string, args ...string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(goBin, append([]string{"build"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v go build %v: %v\n%s", env, args, err, out)
	}
}

// A game other than the arena in package play's window under Xvfb: dots
// plays 15 s in process (a server and its client over the link simulator,
// 80 ms round trip, 1% loss), its player circling (-autoplay), the ghost
// on; the summary has the client connected with no common-base mismatch,
// and the last frame's pixels show the field, the player's dot, the three
// balls, the ghost, the status band and the net graph. With
// SNAPWIRE_PLAY_PNG=FILE the screenshot is also copied there.
func TestGameWindowXvfb(t *testing.T) {
	var sum summary
	shot := playUnderXvfb(t, "dots", &sum)
	t.Logf("summary: %+v", sum)
	// 15 s at 20 snapshots a second, less the connection; frames drawn:
	// Mesa's software rasteriser on a loaded 2-core machine drew 8 a
	// second, an idle one 30 and more.
	if sum.State != "connected" || sum.Error != "" || sum.Snapshots < 200 || sum.BaseChecks < 50 || sum.BaseMismatches != 0 ||
		sum.DecodeErrors != 0 || sum.FramesDrawn < 30 || sum.DurationS < 15 {
		t.Errorf("summary: %+v", sum)
	}
	if p := os.Getenv("SNAPWIRE_PLAY_PNG"); p != "" {
		if b, err := os.ReadFile(shot); err != nil {
			t.Error(err)
		} else if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Error(err)
		}
	}
	checkScreenshot(t, shot)
}

// skipOrFail skips the window test, or fails it when
// SNAPWIRE_REQUIRE_DISPLAY=1 (.ci/run).
func skipOrFail(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if os.Getenv("SNAPWIRE_REQUIRE_DISPLAY") == "1" {
		tb.Fatalf(format+" (SNAPWIRE_REQUIRE_DISPLAY=1)", args...)
	}
	tb.Skipf(format, args...)
}

// checkScreenshot measures the screenshot's pixels in the regions dots and
// the overlay lay out.
func checkScreenshot(t *testing.T, path string) {
	t.Helper()
	hist := screenshotHist(t, path)
	gx, gy, gw, gh := playview.GraphRect(screenW, screenH)
	graphR := image.Rect(gx, gy, gx+gw, gy+gh)
	stripR := image.Rect(gx, gy, gx+playview.GraphStripW, gy+gh)
	textR := image.Rect(gx+playview.GraphStripW, gy, gx+gw, gy+gh)
	hudR := image.Rect(0, 0, screenW, playview.HUDHeight)
	white := color.RGBA{255, 255, 255, 255}
	fld, g, strip, text, hud := hist(fieldR), hist(graphR), hist(stripR), hist(textR), hist(hudR)
	t.Logf("field %v: floor %d, player %d, balls %d, ghost %d px", fieldR, fld[colorField], fld[colorSelf], fld[colorBall], fld[colorGhost])
	t.Logf("graph %v: background %d, snapshots %d, lost %d, lead %d, text %d px; status band %d, its text %d px",
		graphR, g[playview.ColorGraphBG], strip[playview.ColorSnapshot], strip[playview.ColorLost], strip[playview.ColorLead],
		text[white], hud[playview.ColorHUD], hud[white])
	area := func(r image.Rectangle) int { return r.Dx() * r.Dy() }
	if fld[colorField] < area(fieldR)*9/10 {
		t.Error("the field is not drawn")
	}
	// Discs of radius 12 (the player) and 10 (each ball), the ghost a
	// 2-pixel ring of radius 15 around the player (partly under its disc
	// while the prediction runs ahead of the server).
	if fld[colorSelf] < 3*12*12/2 {
		t.Errorf("the player: %d pixels", fld[colorSelf])
	}
	if fld[colorBall] < 3*(3*10*10)/2 {
		t.Errorf("the balls: %d pixels", fld[colorBall])
	}
	if fld[colorGhost] < 20 {
		t.Errorf("the ghost: %d pixels", fld[colorGhost])
	}
	if g[playview.ColorGraphBG] < area(graphR)/3 || strip[playview.ColorSnapshot] < 200 || strip[playview.ColorLead] < 50 || text[white] < 500 {
		t.Error("the net graph is not drawn")
	}
	if hud[playview.ColorHUD] < area(hudR)/2 || hud[white] < 1000 {
		t.Error("the status band is not drawn")
	}
}

// Package play and a program on it (dots) build for the browser
// (GOOS=js GOARCH=wasm: Ebitengine on WebGL, Dial's WebRTC data channel
// through the browser's RTCPeerConnection), without cgo.
func TestWasmBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Ebitengine for js/wasm (-short)")
	}
	goBuild(t, []string{"GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0"}, "-o", filepath.Join(t.TempDir(), "dots.wasm"), "../dots")
}

// screenshotHist reads the window's screenshot at path (the logical
// screen's size) and returns the colour histogram of a region of it.
func screenshotHist(t *testing.T, path string) func(image.Rectangle) map[color.RGBA]int {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != screenW || b.Dy() != screenH {
		t.Fatalf("screenshot is %v, want %dx%d", b, screenW, screenH)
	}
	hist := func(r image.Rectangle) map[color.RGBA]int {
		h := map[color.RGBA]int{}
		for y := r.Min.Y; y < r.Max.Y; y++ {
			for x := r.Min.X; x < r.Max.X; x++ {
				h[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
			}
		}
		return h
	}
	return hist
}

// playUnderXvfb builds the program named name under play/internal, plays it 15 s under
// Xvfb (autoplay, the ghost on), decodes its -json summary into sum and
// returns the path of its last frame's screenshot; it skips (or fails, as
// skipOrFail) without xvfb-run.
func playUnderXvfb(t *testing.T, name string, sum any) (shot string) {
	t.Helper()
	acceptance.Require(t, "window")
	xvfb, err := exec.LookPath("xvfb-run")
	if err != nil {
		skipOrFail(t, "xvfb-run is not installed: the window tests need Debian's xvfb and libgl1-mesa-dri")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, name)
	goBuild(t, nil, "-o", bin, "../"+name)
	shot = filepath.Join(dir, name+".png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, xvfb, "-a", "-s", "-screen 0 1280x1024x24", bin,
		"-autoplay", "-duration", "15s", "-ghost", "-screenshot", shot, "-json")
	cmd.Env = append(os.Environ(), "LIBGL_ALWAYS_SOFTWARE=1", "SDL_AUDIODRIVER=dummy")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", name, err, out)
	}
	if err := json.Unmarshal(out, sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, out)
	}
	return shot
}
