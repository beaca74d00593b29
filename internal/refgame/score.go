package refgame

import "github.com/snapwire/snapwire/game"

// Scoreboard is the game state not tied to the PVS (DOOM III §3.2): frags and deaths of every
// player slot and the match rules. Every client receives it. On the wire: per slot in use frags
// then deaths, then the rarely changing match fields.
//
//snap:entity
type Scoreboard struct {
	Players   int32                      `snap:"min=0,max=MaxPlayersLimit"`    // player slots in use (the map's MaxPlayers)
	Slots     [MaxPlayersLimit]ScoreSlot `snap:"len=Players"`                  // the first Players are sent; the others read as zero
	FragLimit int32                      `snap:"min=0,max=maxFrags"`           // 0 = none
	Winner    int32                      `snap:"min=-1,max=MaxPlayersLimit-1"` // the player who reached FragLimit, -1 while playing
	EndFrame  game.Frame                 // the frame the match was won
}

// ScoreSlot is one player slot's score.
type ScoreSlot struct {
	Frags  int32 `snap:"min=-maxFrags,max=maxFrags"`
	Deaths int32 `snap:"min=0,max=maxFrags"`
}

// PlayerStats is the second non-PVS state (DOOM III §8 "multiple states"): statistics a client
// receives about its own player only. Nothing in the simulation reads it.
//
//snap:entity
type PlayerStats struct {
	DamageGiven  uint16 // wraps
	DamageTaken  uint16 // wraps
	LastAttacker int32  `snap:"min=-1,max=MaxPlayersLimit-1"` // player entity that last damaged this player, -1 for none
	Kills        int32  `snap:"min=0,max=maxFrags"`
}
