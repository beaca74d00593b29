package refgame

import (
	"github.com/snapwire/snapwire/bitmsg"
	"github.com/snapwire/snapwire/game"
)

// Scoreboard is the game state not tied to the PVS (DOOM III §3.2): frags and deaths of every
// player slot and the match rules. Every client receives it.
type Scoreboard struct {
	Players   int32                  // player slots in use (the map's MaxPlayers)
	Frags     [MaxPlayersLimit]int32 // -999..999
	Deaths    [MaxPlayersLimit]int32 // 0..999
	FragLimit int32                  // 0 = none
	Winner    int32                  // the player who reached FragLimit, -1 while playing
	EndFrame  game.Frame             // the frame the match was won
}

// WriteSnapshot writes the scoreboard: per slot frags then deaths, then the rarely changing
// match fields.
func (s *Scoreboard) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteRangedInt(s.Players, 0, MaxPlayersLimit)
	n := int(min(max(s.Players, 0), MaxPlayersLimit))
	for i := 0; i < n; i++ {
		w.WriteRangedInt(s.Frags[i], -maxFrags, maxFrags)
		w.WriteRangedInt(s.Deaths[i], 0, maxFrags)
	}
	w.WriteRangedInt(s.FragLimit, 0, maxFrags)
	w.WriteRangedInt(s.Winner, -1, MaxPlayersLimit-1)
	w.WriteUint32(uint32(s.EndFrame))
}

// ReadSnapshot reads what WriteSnapshot wrote.
func (s *Scoreboard) ReadSnapshot(r *bitmsg.DeltaReader) {
	s.Players = r.ReadRangedInt(0, MaxPlayersLimit)
	for i := 0; i < int(s.Players); i++ {
		s.Frags[i] = r.ReadRangedInt(-maxFrags, maxFrags)
		s.Deaths[i] = r.ReadRangedInt(0, maxFrags)
	}
	s.FragLimit = r.ReadRangedInt(0, maxFrags)
	s.Winner = r.ReadRangedInt(-1, MaxPlayersLimit-1)
	s.EndFrame = game.Frame(int32(r.ReadUint32()))
}

// PlayerStats is the second non-PVS state (DOOM III §8 "multiple states"): statistics a client
// receives about its own player only. Nothing in the simulation reads it.
type PlayerStats struct {
	DamageGiven  uint16 // wraps
	DamageTaken  uint16 // wraps
	Kills        int32  // 0..999
	LastAttacker int32  // player entity that last damaged this player, -1 for none
}

// WriteSnapshot writes the statistics.
func (s *PlayerStats) WriteSnapshot(w *bitmsg.DeltaWriter) {
	w.WriteUint16(s.DamageGiven)
	w.WriteUint16(s.DamageTaken)
	w.WriteRangedInt(s.LastAttacker, -1, MaxPlayersLimit-1)
	w.WriteRangedInt(s.Kills, 0, maxFrags)
}

// ReadSnapshot reads what WriteSnapshot wrote.
func (s *PlayerStats) ReadSnapshot(r *bitmsg.DeltaReader) {
	s.DamageGiven = r.ReadUint16()
	s.DamageTaken = r.ReadUint16()
	s.LastAttacker = r.ReadRangedInt(-1, MaxPlayersLimit-1)
	s.Kills = r.ReadRangedInt(0, maxFrags)
}
