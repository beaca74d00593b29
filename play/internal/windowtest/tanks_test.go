package windowtest

import (
	"fmt"
	"image"
	"image/color"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/snapwire/snapwire/internal/playview"
)

// tanksSummary is play/internal/tanks' -json output (its samples are a
// remote session's only).
type tanksSummary struct {
	Mode            string   `json:"mode"`
	State           string   `json:"state"`
	Error           string   `json:"error"`
	DurationS       float64  `json:"duration_s"`
	FramesDrawn     int      `json:"frames_drawn"`
	ClientNum       int      `json:"client_num"`
	Snapshots       uint64   `json:"snapshots"`
	BaseChecks      uint64   `json:"base_checks"`
	BaseMismatches  uint64   `json:"base_mismatches"`
	DecodeErrors    uint64   `json:"decode_errors"`
	ApplyErrors     uint64   `json:"apply_errors"`
	StateChecks     uint64   `json:"state_checks"`
	StateEntities   uint64   `json:"state_entities"`
	StateMismatches uint64   `json:"state_mismatches"`
	StateUnchecked  uint64   `json:"state_unchecked"`
	StateError      string   `json:"state_error"`
	PingMS          float64  `json:"ping_ms"`
	OtherTanks      int      `json:"other_tanks"`
	Shells          int      `json:"shells"`
	Sparks          int      `json:"sparks"`
	Score           int32    `json:"score"`
	Feed            []string `json:"feed"`
	Chat            []string `json:"chat"`
}

// The tanks' colours (play/internal/tanks/draw.go) and its field's place.
var (
	tanksField   = color.RGBA{24, 48, 32, 255}
	tanksCrate   = color.RGBA{176, 120, 56, 255}
	tanksWreck   = color.RGBA{72, 60, 44, 255}
	tanksSelf    = color.RGBA{0, 200, 255, 255}
	tanksOther   = color.RGBA{255, 80, 64, 255}
	tanksShell   = color.RGBA{255, 255, 96, 255}
	tanksWrecked = color.RGBA{90, 90, 90, 255}
	tanksGhost   = color.RGBA{255, 255, 255, 255}
	tanksFieldR  = image.Rect(40, 50, 40+600, 50+600)
)

// The second example game (examples/tanks) in package play's window under
// Xvfb: play/internal/tanks plays 15 s in process (a tanks server, two
// bots and the player's client over the link simulator, 80 ms round trip,
// 1% loss), the player's tank driven by the game's bot (-autoplay), the
// ghost on. The summary has the client connected with no common-base
// mismatch, every snapshot's entity states equal to the server's of its
// frame (internal/statecheck), no decode error, other tanks and shells
// seen, and the autoplayer's chat line (a game message to the server)
// back in its feed (relayed to every client); the last frame's pixels
// show the field, crates, tanks, the status band and the net graph. With
// SNAPWIRE_TANKS_PNG=FILE the screenshot is also copied there.
func TestTanksWindowXvfb(t *testing.T) {
	var sum tanksSummary
	shot := playUnderXvfb(t, "tanks", &sum)
	t.Logf("summary: %+v", sum)
	// 15 s at 20 snapshots a second, less the connection; frames drawn as
	// for dots (TestGameWindowXvfb).
	if sum.Mode != "in-process" || sum.State != "connected" || sum.Error != "" || sum.Snapshots < 200 ||
		sum.BaseChecks < 50 || sum.BaseMismatches != 0 || sum.StateChecks < 200 || sum.StateMismatches != 0 ||
		sum.DecodeErrors != 0 || sum.ApplyErrors != 0 || sum.FramesDrawn < 30 || sum.DurationS < 15 {
		t.Errorf("summary: %+v", sum)
	}
	if sum.OtherTanks < 1 || sum.Shells < 1 {
		t.Errorf("the player saw %d other tanks and %d shells, want both", sum.OtherTanks, sum.Shells)
	}
	if want := fmt.Sprintf("player %d: gl hf", sum.ClientNum); !slices.Contains(sum.Chat, want) {
		t.Errorf("chat %q lacks the player's line %q", sum.Chat, want)
	}
	if p := os.Getenv("SNAPWIRE_TANKS_PNG"); p != "" {
		if b, err := os.ReadFile(shot); err != nil {
			t.Error(err)
		} else if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Error(err)
		}
	}
	checkTanksScreenshot(t, shot)
}

// checkTanksScreenshot measures the screenshot's pixels in the regions
// the tanks and the overlay lay out.
func checkTanksScreenshot(t *testing.T, path string) {
	t.Helper()
	hist := screenshotHist(t, path)
	gx, gy, gw, gh := playview.GraphRect(screenW, screenH)
	graphR := image.Rect(gx, gy, gx+gw, gy+gh)
	stripR := image.Rect(gx, gy, gx+playview.GraphStripW, gy+gh)
	hudR := image.Rect(0, 0, screenW, playview.HUDHeight)
	white := color.RGBA{255, 255, 255, 255}
	fld, g, strip, hud := hist(tanksFieldR), hist(graphR), hist(stripR), hist(hudR)
	t.Logf("field %v: floor %d, crates %d, wrecks %d, player %d, others %d, destroyed tanks %d, shells %d, ghost %d px",
		tanksFieldR, fld[tanksField], fld[tanksCrate], fld[tanksWreck], fld[tanksSelf], fld[tanksOther], fld[tanksWrecked],
		fld[tanksShell], fld[tanksGhost])
	t.Logf("graph %v: background %d, snapshots %d px; status band %d, its text %d px",
		graphR, g[playview.ColorGraphBG], strip[playview.ColorSnapshot], hud[playview.ColorHUD], hud[white])
	area := func(r image.Rectangle) int { return r.Dx() * r.Dy() }
	if fld[tanksField] < area(tanksFieldR)*3/4 {
		t.Error("the field is not drawn")
	}
	// A crate is 32 units square, 18.75 pixels at the field's scale; the
	// player's tank sees at least four of the twelve from anywhere.
	if fld[tanksCrate]+fld[tanksWreck] < 4*18*18 {
		t.Errorf("the crates: %d pixels", fld[tanksCrate]+fld[tanksWreck])
	}
	// A tank is a disc of radius 7 pixels (a 2-pixel ring while
	// destroyed); the player's own is always in sight.
	if fld[tanksSelf]+fld[tanksOther]+fld[tanksWrecked] < 60 {
		t.Errorf("the tanks: %d pixels", fld[tanksSelf]+fld[tanksOther]+fld[tanksWrecked])
	}
	if fld[tanksGhost] < 20 {
		t.Errorf("the ghost: %d pixels", fld[tanksGhost])
	}
	if g[playview.ColorGraphBG] < area(graphR)/3 || strip[playview.ColorSnapshot] < 200 {
		t.Error("the net graph is not drawn")
	}
	if hud[playview.ColorHUD] < area(hudR)/2 || hud[white] < 1000 {
		t.Error("the status band is not drawn")
	}
}

// The tanks build for the browser (GOOS=js GOARCH=wasm), without cgo.
func TestTanksWasmBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds Ebitengine for js/wasm (-short)")
	}
	goBuild(t, []string{"GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0"}, "-o", filepath.Join(t.TempDir(), "tanks.wasm"), "../tanks")
}
