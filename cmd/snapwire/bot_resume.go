package main

import (
	"errors"
	"time"

	"github.com/snapwire/snapwire/client"
)

// maxBotResumes bounds how many times one bot resumes its session.
const maxBotResumes = 16

// botResumes reports whether a bot whose session ended with err dials
// again with its connect token: its session timed out, and a secure
// server holds its slot, entity and score for its reconnect grace (20 s
// by default) for the same token (docs/PROTOCOL.md, "Reconnection"). A
// bot without a token, or refused, or kicked, ends.
func botResumes(ccfg client.Config, err error, resumes int) bool {
	return ccfg.Token != nil && errors.Is(err, client.ErrTimeout) && resumes < maxBotResumes
}

// botTokenLifetime is the lifetime of a token a bot issues itself
// (--key-file): a resume needs a valid token, so it covers the whole run
// and a minute more (a day when the bot plays until stopped).
func botTokenLifetime(o botOptions) time.Duration {
	if o.duration <= 0 {
		return 24 * time.Hour
	}
	return o.duration + time.Minute
}
