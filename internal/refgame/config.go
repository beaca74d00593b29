package refgame

import (
	"fmt"
	"strconv"
	"strings"
)

// String returns the settings string of the config (game.Game.Load's argument), for example
// "arena rooms=3x3 tiles=12 players=16 entities=500 static=0 seed=42". Defaults are filled in,
// so equal maps have equal strings.
func (c Config) String() string {
	c = c.withDefaults()
	static := 0
	if c.StaticFill {
		static = 1
	}
	return fmt.Sprintf("arena rooms=%dx%d tiles=%d players=%d entities=%d static=%d seed=%d",
		c.RoomsX, c.RoomsY, c.RoomTiles, c.MaxPlayers, c.Entities, static, c.Seed)
}

// ParseConfig parses a settings string written by Config.String. Keys may come in any order and
// may be left out (defaults apply); "arena" alone is the default map.
func ParseConfig(s string) (Config, error) {
	f := strings.Fields(s)
	if len(f) == 0 || f[0] != "arena" {
		return Config{}, fmt.Errorf("%w: settings %q do not start with \"arena\"", ErrConfig, s)
	}
	var c Config
	for _, kv := range f[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return Config{}, fmt.Errorf("%w: setting %q is not key=value", ErrConfig, kv)
		}
		var err error
		switch k {
		case "rooms":
			x, y, ok := strings.Cut(v, "x")
			if !ok {
				return Config{}, fmt.Errorf("%w: rooms=%q is not NxM", ErrConfig, v)
			}
			if c.RoomsX, err = strconv.Atoi(x); err == nil {
				c.RoomsY, err = strconv.Atoi(y)
			}
		case "tiles":
			c.RoomTiles, err = strconv.Atoi(v)
		case "players":
			c.MaxPlayers, err = strconv.Atoi(v)
		case "entities":
			c.Entities, err = strconv.Atoi(v)
		case "static":
			var b int
			b, err = strconv.Atoi(v)
			c.StaticFill = b != 0
		case "seed":
			c.Seed, err = strconv.ParseUint(v, 10, 64)
		default:
			return Config{}, fmt.Errorf("%w: unknown setting %q", ErrConfig, k)
		}
		if err != nil {
			return Config{}, fmt.Errorf("%w: setting %q: %v", ErrConfig, kv, err)
		}
	}
	if _, err := NewMap(c); err != nil {
		return Config{}, err
	}
	return c.withDefaults(), nil
}
