//go:build !js

package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
)

func main() {
	var opt options
	flag.StringVar(&opt.connect, "connect", "", "a tanks server at HOST:PORT (default: a match in this process)")
	flag.StringVar(&opt.serve, "serve", "", "serve the match on this UDP address (HOST:PORT, port 0 for any) for -connect players")
	flag.DurationVar(&opt.duration, "duration", 0, "quit after this long (0: when the window closes)")
	flag.StringVar(&opt.screenshot, "screenshot", "", "write the last frame to this PNG file")
	flag.BoolVar(&opt.autoplay, "autoplay", false, "a bot drives the player's tank (tanks.Game.BotCommand)")
	flag.BoolVar(&opt.ghost, "ghost", false, "start with the ghost shown (key G; in process only)")
	flag.IntVar(&opt.bots, "bots", 2, "bots in the in-process or served match, 0..15")
	asJSON := flag.Bool("json", false, "print a summary as JSON")
	flag.Parse()
	if opt.serve != "" && opt.connect != "" {
		fmt.Fprintln(os.Stderr, "tanks: -serve and -connect exclude each other")
		os.Exit(2)
	}
	if opt.bots < 0 || opt.bots >= 16 {
		fmt.Fprintln(os.Stderr, "tanks: -bots: 0..15")
		os.Exit(2)
	}
	sum, err := run(opt)
	if *asJSON {
		json.NewEncoder(os.Stdout).Encode(sum)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tanks:", err)
		os.Exit(1)
	}
}
