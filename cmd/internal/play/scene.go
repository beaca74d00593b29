package play

import (
	"fmt"
	"image/color"
	"math"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/playview"
	"github.com/snapwire/snapwire/internal/refgame"
)

// The arena's colours, chosen apart from each other and from the
// overlay's (playview) so that a screenshot's pixels say what was drawn.
var (
	Background    = color.RGBA{12, 12, 18, 255}  // outside the map, and its walls
	ColorFloor    = color.RGBA{38, 66, 92, 255}  // room floors
	ColorDoorShut = color.RGBA{150, 96, 40, 255} // a closed or moving door
	ColorDoorOpen = color.RGBA{70, 110, 80, 255} // an open door
	ColorSelf     = color.RGBA{60, 230, 90, 255} // the player
	ColorOther    = color.RGBA{235, 70, 60, 255} // other players
	ColorRocket   = color.RGBA{255, 170, 40, 255}
)

// The overlay's colours (playview).
var (
	ColorHUD        = playview.ColorHUD
	ColorGhost      = playview.ColorGhost
	ColorGraphBG    = playview.ColorGraphBG
	ColorGraphLine  = playview.ColorGraphLine
	ColorSnapshot   = playview.ColorSnapshot
	ColorLost       = playview.ColorLost
	ColorCorrection = playview.ColorCorrection
	ColorLead       = playview.ColorLead
	ColorDup        = playview.ColorDup
)

// MapRect is where the map is drawn in a w by h window, and the scale
// from world units to pixels: the whole map, centred between the HUD and
// the net graph's band.
func MapRect(m *refgame.Map, w, h int) (ox, oy, scale float32) {
	mw, mh := float32(m.W*refgame.TileSize), float32(m.H*refgame.TileSize)
	avail := float32(h - HUDHeight - GraphHeight - 2*GraphMargin)
	scale = min(float32(w)/mw, avail/mh)
	return (float32(w) - mw*scale) / 2, HUDHeight + (avail-mh*scale)/2, scale
}

// textEvery is how often, in drawn frames, the title is formatted again
// (formatting allocates: a few strings four times a second).
const textEvery = 15

// Scene fills sc with the frame to draw in a w by h window: the arena,
// then the overlay (playview.Overlay: the status band and the net graph),
// as package play's window draws them (the headless frame).
func (s *Session) Scene(sc *Scene, w, h int) {
	sc.Reset(w, h)
	var gx, gy float32
	var ghost bool
	if s.ov.Knobs.Ghost {
		gx, gy, ghost = s.Ghost()
	}
	s.ArenaScene(sc, s.DrawPosition, gx, gy, ghost)
	if s.ov.Title == "" || s.drawn >= s.titleAt+textEvery {
		s.ov.Title, s.titleAt = "snapwire play  "+s.Title(), s.drawn
	}
	ov := s.ov.Scene(s.cl, w, h)
	sc.Shapes = append(sc.Shapes, ov.Shapes...)
	sc.Texts = append(sc.Texts, ov.Texts...)
}

// ArenaScene appends the arena of the player's world to sc: the map, the
// doors, the players and rockets in the PVS drawn where at puts them, and
// with ghost the ring of the server's position of the player at gx, gy.
func (s *Session) ArenaScene(sc *Scene, at func(n game.EntityNum, e client.Positioner) (x, y float32), gx, gy float32, ghost bool) {
	if m := s.w.Map; m != nil && s.cl.State() == client.Connected {
		s.drawMap(sc, m, at, gx, gy, ghost)
	}
}

func (s *Session) drawMap(sc *Scene, m *refgame.Map, at func(n game.EntityNum, e client.Positioner) (x, y float32), gx, gy float32, ghost bool) {
	ox, oy, k := MapRect(m, sc.W, sc.H)
	px := func(x, y float32) (float32, float32) { return ox + x*k, oy + y*k }
	for i := range m.Rooms {
		r := &m.Rooms[i]
		x, y := px(r.MinX, r.MinY)
		sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, X: x, Y: y, W: (r.MaxX - r.MinX) * k, H: (r.MaxY - r.MinY) * k, Color: ColorFloor})
	}
	for i := range m.Doors {
		d := &m.Doors[i]
		dw, dh := float32(refgame.TileSize), float32(2*refgame.TileSize)
		if !d.Vertical {
			dw, dh = dh, dw
		}
		x, y := px(float32(d.TX*refgame.TileSize), float32(d.TY*refgame.TileSize))
		c := ColorDoorShut
		if i < len(s.w.Doors) && s.w.Doors[i].State == refgame.DoorOpen {
			c = ColorDoorOpen
		}
		sc.Shapes = append(sc.Shapes, Shape{Kind: Rect, X: x, Y: y, W: dw * k, H: dh * k, Color: c})
	}
	me := game.EntityNum(s.cl.ClientNum())
	var selfX, selfY float32
	haveSelf := false
	for n := range s.cl.Visible() {
		e, typ := s.w.Entity(n)
		switch typ {
		case refgame.TypePlayer:
			p := e.(*refgame.Player)
			if !p.Alive() {
				continue
			}
			x, y := px(at(n, p))
			c := ColorOther
			if n == me {
				c, selfX, selfY, haveSelf = ColorSelf, x, y, true
			}
			r := max(refgame.PlayerRadius*k, 3)
			sc.Shapes = append(sc.Shapes, Shape{Kind: Circle, X: x, Y: y, W: r, Color: c})
			// The view direction.
			a := float64(p.Yaw) / 65536 * 2 * math.Pi
			l := 2 * r
			sc.Shapes = append(sc.Shapes, Shape{Kind: Line, X: x, Y: y, W: x + l*float32(math.Cos(a)), H: y + l*float32(math.Sin(a)), Color: c})
		case refgame.TypeRocket:
			rk := e.(*refgame.Rocket)
			if rk.Exploded != 0 {
				continue
			}
			x, y := px(at(n, rk))
			sc.Shapes = append(sc.Shapes, Shape{Kind: Circle, X: x, Y: y, W: max(refgame.RocketRadius*k, 2), Color: ColorRocket})
		}
	}
	if ghost {
		x, y := px(gx, gy)
		sc.Shapes = append(sc.Shapes, Shape{Kind: Ring, X: x, Y: y, W: max(refgame.PlayerRadius*k, 3) + 2, Color: ColorGhost})
	}
	if haveSelf && s.in.Aim && !s.opt.Autoplay {
		ax, ay := px(s.in.AimX, s.in.AimY)
		sc.Shapes = append(sc.Shapes, Shape{Kind: Line, X: selfX, Y: selfY, W: ax, H: ay, Color: ColorGraphLine})
	}
}

// Title is the arena's part of the status line: where the server is, who
// plays (Mode), the client's number and state, and its frags.
func (s *Session) Title() string {
	return fmt.Sprintf("%s  client %d %s  frags %d", s.Mode(), s.cl.ClientNum(), s.cl.State(), s.Frags())
}

// Mode says where the server is and who plays.
func (s *Session) Mode() string {
	where := "in process"
	if s.live == nil {
		where = "udp " + s.opt.Connect
		if isWebURL(s.opt.Connect) {
			where = "webrtc " + s.opt.Connect
		}
	}
	who := "you play"
	if s.opt.Autoplay {
		who = "autoplay"
	}
	return where + "  " + who
}
