package lockstep

// The match key of the tests' matches. (Run against the package before
// authentication, this file's helpers were replaced by ones that return
// their argument: see the attack tests.)

var testKey = MatchKey{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32}

// keyed is cfg with the test match key.
func keyed(cfg Config) Config { cfg.Key = testKey; return cfg }

// relayKeyed is cfg with the test match key.
func relayKeyed(cfg RelayConfig) RelayConfig { cfg.Key = testKey; return cfg }
