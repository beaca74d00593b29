package demo

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// MaxMsgLen is the longest message a demo may hold (ioq3 MAX_MSGLEN; the
// engine's CL_ReadDemoMessage refuses longer ones).
const MaxMsgLen = 16384

// Errors.
var (
	ErrBadLength = errors.New("demo: bad message length")
	ErrTruncated = errors.New("demo: truncated file")
)

// Message is one demo record: a server message as the client received it,
// without netchan header and (legacy protocol) already unscrambled.
type Message struct {
	Sequence int32 // the client's serverMessageSequence
	Data     []byte
}

// Reader reads a .dm_NN file (ioq3 CL_ReadDemoMessage):
//
//	{ [int32 LE sequence] [int32 LE length] [length bytes] } [-1] [-1]
type Reader struct {
	r    io.Reader
	buf  []byte
	done bool
	// Terminated is set once the -1 -1 end marker has been read.
	Terminated bool
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader { return &Reader{r: r} }

// Next returns the next message; its Data is valid until the next call.
// At the -1 -1 end marker, or at a clean end of file, it returns io.EOF.
func (d *Reader) Next() (Message, error) {
	if d.done {
		return Message{}, io.EOF
	}
	var hdr [8]byte
	n, err := io.ReadFull(d.r, hdr[:4])
	if err == io.EOF && n == 0 {
		d.done = true
		return Message{}, io.EOF
	}
	if err != nil {
		d.done = true
		return Message{}, ErrTruncated
	}
	seq := int32(binary.LittleEndian.Uint32(hdr[:4]))
	if _, err := io.ReadFull(d.r, hdr[4:]); err != nil {
		d.done = true
		return Message{}, ErrTruncated
	}
	l := int32(binary.LittleEndian.Uint32(hdr[4:]))
	if l == -1 { // the engine ends at a length of -1 whatever the sequence
		d.done = true
		d.Terminated = true
		return Message{}, io.EOF
	}
	if l < 0 || l > MaxMsgLen {
		d.done = true
		return Message{}, fmt.Errorf("%w: %d", ErrBadLength, l)
	}
	if cap(d.buf) < int(l) {
		d.buf = make([]byte, l)
	}
	d.buf = d.buf[:l]
	if _, err := io.ReadFull(d.r, d.buf); err != nil {
		d.done = true
		return Message{}, ErrTruncated
	}
	return Message{Sequence: seq, Data: d.buf}, nil
}

// Writer writes a demo file (ioq3 CL_Record_f / CL_WriteDemoMessage /
// CL_StopRecord_f).
type Writer struct {
	w   io.Writer
	err error
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteMessage appends one record.
func (d *Writer) WriteMessage(seq int32, data []byte) error {
	if d.err != nil {
		return d.err
	}
	if len(data) > MaxMsgLen {
		return fmt.Errorf("%w: %d", ErrBadLength, len(data))
	}
	var hdr [8]byte
	binary.LittleEndian.PutUint32(hdr[:4], uint32(seq))
	binary.LittleEndian.PutUint32(hdr[4:], uint32(len(data)))
	if _, d.err = d.w.Write(hdr[:]); d.err != nil {
		return d.err
	}
	_, d.err = d.w.Write(data)
	return d.err
}

// Close writes the -1 -1 end marker (it does not close the underlying writer).
func (d *Writer) Close() error {
	if d.err != nil {
		return d.err
	}
	_, d.err = d.w.Write([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	return d.err
}
