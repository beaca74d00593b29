package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"image/color"
	"os"
	"time"

	"github.com/hajimehoshi/ebiten/v2"
	"github.com/hajimehoshi/ebiten/v2/vector"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/clienthook"
	"github.com/snapwire/snapwire/netsim"
	"github.com/snapwire/snapwire/play"
)

// Colours, apart from the overlay's, so that the screenshot's pixels say
// what was drawn.
var (
	colorField = color.RGBA{20, 34, 60, 255}
	colorSelf  = color.RGBA{0, 200, 255, 255}
	colorOther = color.RGBA{200, 90, 255, 255}
	colorBall  = color.RGBA{255, 120, 200, 255}
	colorGhost = color.RGBA{255, 255, 255, 255}
)

// The field's place on the logical screen: below the status band, above
// the net graph.
const fieldX, fieldY = 40, 50

// drawing is the game's part of the window: the field, the dots and the
// balls where the View puts them, and the ghost.
type drawing struct {
	frames int
}

func (d *drawing) Draw(screen *ebiten.Image, v *play.View) {
	d.frames++
	vector.DrawFilledRect(screen, fieldX, fieldY, fieldW, fieldH, colorField, false)
	cl := v.Client()
	if cl.State() != client.Connected {
		return
	}
	me := game.EntityNum(cl.ClientNum())
	for n := range cl.Visible() {
		x, y, _, ok := v.Position(n)
		if !ok {
			continue
		}
		switch {
		case n >= firstBall:
			vector.DrawFilledCircle(screen, fieldX+x, fieldY+y, 10, colorBall, false)
		case n == me:
			vector.DrawFilledCircle(screen, fieldX+x, fieldY+y, 12, colorSelf, false)
		default:
			vector.DrawFilledCircle(screen, fieldX+x, fieldY+y, 12, colorOther, false)
		}
	}
	if x, y, _, ok := v.Ghost(); ok {
		vector.StrokeCircle(screen, fieldX+x, fieldY+y, 15, 2, colorGhost, false)
	}
}

// summary is what -json prints.
type summary struct {
	State          string  `json:"state"`
	Error          string  `json:"error,omitempty"`
	DurationS      float64 `json:"duration_s"`
	FramesDrawn    int     `json:"frames_drawn"`
	Snapshots      uint64  `json:"snapshots"`
	BaseChecks     uint64  `json:"base_checks"`
	BaseMismatches uint64  `json:"base_mismatches"`
	DecodeErrors   uint64  `json:"decode_errors"`
	PingMS         float64 `json:"ping_ms"`
}

func main() {
	connect := flag.String("connect", "", "a server at HOST:PORT (default: one in this process)")
	duration := flag.Duration("duration", 0, "quit after this long (0: when the window closes)")
	shot := flag.String("screenshot", "", "write the last frame to this PNG file")
	autoplay := flag.Bool("autoplay", false, "the player's dot circles by itself")
	ghost := flag.Bool("ghost", false, "start with the ghost shown (key G)")
	asJSON := flag.Bool("json", false, "print a summary as JSON")
	flag.Parse()

	input := client.InputFunc(keys)
	if *autoplay {
		input = circle
	}
	var (
		s   play.Session
		err error
	)
	if *connect == "" {
		s, err = play.Local(New(), New(), "", input)
	} else {
		s, err = play.Dial(*connect, client.Config{Name: "dots"}, New(), input)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dots:", err)
		os.Exit(1)
	}
	d := &drawing{}
	start := time.Now()
	runErr := play.Run(d, s, play.Options{Title: "dots", Keys: "arrows move",
		Link:  netsim.LinkConfig{Latency: 40 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.01},
		Ghost: *ghost, Duration: *duration, Screenshot: *shot})
	cl := s.Client()
	st, ctr := cl.Stats(), clienthook.CountersOf(cl)
	sum := summary{State: st.State.String(), DurationS: time.Since(start).Seconds(), FramesDrawn: d.frames,
		Snapshots: st.SnapshotsReceived, BaseChecks: ctr.BaseChecks, BaseMismatches: ctr.BaseMismatches,
		DecodeErrors: ctr.DecodeErrors, PingMS: float64(st.RTT) / float64(time.Millisecond)}
	if runErr != nil {
		sum.Error = runErr.Error()
	}
	s.Close()
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(sum)
	}
	if runErr != nil {
		fmt.Fprintln(os.Stderr, "dots:", runErr)
		os.Exit(1)
	}
}

// keys is the player's command from the arrow keys (Ebitengine's input
// may be read on the window's goroutine, which samples commands).
func keys(in client.Input) game.UserCmd {
	cmd := game.UserCmd{Frame: in.Frame}
	if ebiten.IsKeyPressed(ebiten.KeyArrowRight) {
		cmd.Right += 127
	}
	if ebiten.IsKeyPressed(ebiten.KeyArrowLeft) {
		cmd.Right -= 127
	}
	if ebiten.IsKeyPressed(ebiten.KeyArrowUp) {
		cmd.Forward += 127
	}
	if ebiten.IsKeyPressed(ebiten.KeyArrowDown) {
		cmd.Forward -= 127
	}
	return cmd
}
