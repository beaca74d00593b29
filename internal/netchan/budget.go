package netchan

import "time"

// SendBudget returns the largest payload a message sent at now may have
// without exceeding Config.Rate: the bytes the token bucket holds (at most
// Config.Burst), less the outstanding reliable messages, the headers and 28
// bytes of UDP/IP per packet, as CanSend counts them (so CanSend(now, b)
// holds for every b <= SendBudget(now)). It is 0 when the bucket holds
// less than that, and -1 when the rate is unlimited. Unlike CanSend it
// does not allow a message larger than the bucket when the bucket is full:
// it is the budget a snapshot is built to (the server's priority budget).
func (c *Channel) SendBudget(now time.Duration) int {
	if c.cfg.Rate <= 0 {
		return -1
	}
	drained := now - max(c.clear, now-c.burst) // the bucket's content, in time
	if drained <= 0 {
		return 0
	}
	wire := int(int64(drained) * int64(c.cfg.Rate) / int64(time.Second))
	// The payload with the outstanding reliable bytes, in one packet or in
	// fragments (wireEstimate's two cases).
	tag := 0
	if c.crypto != nil {
		tag = TagLen
	}
	body := wire - headerLen - tag - UDPIPOverhead
	if headerLen+body+tag > c.cfg.MTU {
		maxData := c.cfg.MTU - headerLen - fragHeaderMax - tag
		perFrag := headerLen + fragHeaderMax + tag + UDPIPOverhead
		frags := (wire + maxData + perFrag - 1) / (maxData + perFrag)
		body = wire - frags*perFrag
		// At most a fragment's overhead too much: the loop runs once or twice.
		for body > 0 && c.wireEstimate(body-c.rel.wireLen()) > wire {
			body -= perFrag
		}
	}
	return max(body-c.rel.wireLen(), 0)
}
