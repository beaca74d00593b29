package client

import (
	"errors"
	"io"

	"github.com/snapwire/snapwire/internal/q3/demo"
	"github.com/snapwire/snapwire/internal/q3/msg"
)

// ErrRecording is returned by Record while a recording is running.
var ErrRecording = errors.New("client: already recording")

// recorder writes a demo the way ioq3 CL_Record_f and CL_WriteDemoMessage
// do.
type recorder struct {
	w       *demo.Writer
	started bool // the rebuilt gamestate is written
	waiting bool // clc.demowaiting: no uncompressed snapshot yet
	err     error
	wr      msg.Writer
	buf     []byte
	written int
}

// Record starts writing a demo to w: at once if the gamestate is in,
// otherwise when it arrives. The first record is the gamestate rebuilt
// from the client's state and tagged with the last message sequence minus
// one (CL_Record_f); then the client asks for uncompressed snapshots
// (clc_moveNoDelta) until one arrives, and from that message on every
// server message is written with its true sequence (CL_WriteDemoMessage).
func (c *Client) Record(w io.Writer) error {
	if c.rec != nil {
		return ErrRecording
	}
	c.rec = &recorder{w: demo.NewWriter(w)}
	if c.st.HaveGamestate {
		c.rec.gamestate(c, nil)
	}
	return c.rec.err
}

// StopRecord ends the demo with the -1 -1 marker (CL_StopRecord_f) and
// reports the first write error, if any. It returns the number of records
// written.
func (c *Client) StopRecord() (int, error) {
	r := c.rec
	if r == nil {
		return 0, nil
	}
	c.rec = nil
	if r.err == nil {
		r.err = r.w.Close()
	}
	return r.written, r.err
}

// gamestate writes the rebuilt gamestate (CL_Record_f). g is unused: the
// state holds the configstrings as modified since.
func (r *recorder) gamestate(c *Client, _ *msg.Gamestate) {
	if r.err != nil {
		return
	}
	st := &c.st
	g := msg.Gamestate{CommandSeq: st.ServerCommandSequence, ClientNum: st.ClientNum, ChecksumFeed: st.ChecksumFeed}
	for i, ok := range st.ConfigstringSet {
		if ok && st.Configstrings[i] != "" {
			g.Configstrings = append(g.Configstrings, msg.Configstring{Index: i, Value: st.Configstrings[i]})
		}
	}
	for i := range st.Baselines() {
		if b := &st.Baselines()[i]; b.Number != 0 {
			g.Baselines = append(g.Baselines, *b)
		}
	}
	r.wr.Reset(r.buf[:0], msg.MaxMsgLen)
	r.wr.WriteInt32(c.reliableSeq) // "all server->client messages now acknowledge"
	msg.WriteGamestate(&r.wr, &g)
	r.wr.WriteUint8(uint8(msg.SvcEOF))
	if r.err = r.wr.Err(); r.err != nil {
		return
	}
	data := r.wr.Bytes()
	r.buf = data[:0]
	if r.err = r.w.WriteMessage(st.ServerMessageSequence-1, data); r.err == nil {
		r.written++
	}
	r.started, r.waiting = true, true
}

// message writes one parsed server message once an uncompressed snapshot
// has arrived (CL_ParseSnapshot clears clc.demowaiting).
func (r *recorder) message(c *Client, m *msg.ServerMessage, data []byte, seq int32) {
	if !r.started || r.err != nil || m == nil {
		return
	}
	if r.waiting {
		for _, o := range m.Ops {
			if s, ok := o.(*msg.Snapshot); ok && s.DeltaNum < 0 {
				r.waiting = false
			}
		}
		if r.waiting {
			return
		}
	}
	if r.err = r.w.WriteMessage(seq, data); r.err == nil {
		r.written++
	}
}
