package refgame_test

import (
	"fmt"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/refgame"
	"github.com/snapwire/snapwire/internal/snapshot"
)

// Four bots fight for 60 s in a 2×2-room arena, run frame by frame as the
// server runs it, without a network: the world is pure logic. Run twice
// from the same settings, it ends bit for bit the same, which is what lets
// a client predict with the server's code (DOOM III §2).
func Example() {
	play := func() (*refgame.World, [4]int) {
		w, _ := refgame.NewWorld(refgame.Config{Seed: 7, RoomsX: 2, RoomsY: 2, MaxPlayers: 4})
		var bots []*refgame.Bot
		for c := range game.ClientNum(4) {
			w.ClientConnected(c)
			bots = append(bots, refgame.NewBot(uint64(c), c, refgame.BotDeathmatch))
		}
		for f := game.Frame(1); f <= 60*refgame.FrameRate; f++ {
			var cmds []game.PlayerCmd
			for c, b := range bots {
				cmds = append(cmds, game.PlayerCmd{Entity: game.EntityNum(c), Cmd: b.Command(w, f)})
			}
			w.RunFrame(&game.Tick{Frame: f, Cmds: cmds, Events: game.Discard})
		}
		var pvs [4]int
		for c := range game.ClientNum(4) { // what each player sees at the end
			var set snapshot.PVS
			w.Visible(c, &set)
			pvs[c] = set.Len()
		}
		return w, pvs
	}
	a, pvs := play()
	b, _ := play()
	var frags, deaths []int32
	for _, slot := range a.Score.Slots[:4] {
		frags, deaths = append(frags, slot.Frags), append(deaths, slot.Deaths)
	}
	fmt.Println("frags", frags, "deaths", deaths)
	fmt.Println("entities in each PVS", pvs, "of", a.Map.NumEntities)
	fmt.Println("same end both times:", a.Score == b.Score && fmt.Sprint(a.Players) == fmt.Sprint(b.Players))
	// Output:
	// frags [10 13 12 12] deaths [12 12 12 13]
	// entities in each PVS [7 11 11 7] of 36
	// same end both times: true
}
