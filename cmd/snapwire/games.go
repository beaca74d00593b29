package main

// The games serve hosts and load plays against: the arena (internal/refgame,
// the default, at most 64 players: its scoreboard state has a slot for
// each) and the crowd (internal/crowdgame, players on a grid each seeing
// those near it through a game.Grid), for a match of up to game.MaxClients
// players (issue 25, "Many players in one match").

import (
	"fmt"

	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/crowdgame"
	"github.com/snapwire/snapwire/internal/refgame"
)

// The values of --game.
const (
	gameArena = "arena"
	gameCrowd = "crowd"
)

const gameFlagUsage = "the game to serve: arena (the reference game, up to 64 players) or crowd " +
	"(players on a grid, each seeing those near it: a match of up to 1024 for load tests, 'snapwire load --game crowd')"

func checkGameFlag(name string) error {
	if name != gameArena && name != gameCrowd {
		return fmt.Errorf("--game %q: want %s or %s", name, gameArena, gameCrowd)
	}
	return nil
}

// serveGame returns a new instance of the game name names (checkGameFlag),
// and the arena's world when it is the arena (for the query answers'
// scores), else nil.
func serveGame(name string) (game.Game, *refgame.World) {
	if name == gameCrowd {
		return crowdgame.New(), nil
	}
	w := refgame.NewGame()
	return w, w
}
