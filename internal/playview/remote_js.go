//go:build js

package playview

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"syscall/js"
	"time"

	"github.com/snapwire/snapwire/internal/signalling"
)

// jsLink is a WebRTC data channel of the browser's own RTCPeerConnection
// (W3C WebRTC 1.0), driven through syscall/js: the same channel the
// server's side creates (cmd/internal/rtc: negotiated id 0, unordered, no
// retransmission, RFC 8831 §6.1).
type jsLink struct {
	pc, dc js.Value
	out    js.Value // a reusable Uint8Array for sends
	funcs  []js.Func
	props  []prop // handler properties set, cleared at close
}

type prop struct {
	v    js.Value
	name string
}

// maxMessage is rtc.MaxMessage (cmd/internal/rtc) (that package is not built for
// js: it is pion), and RemoteBufferSize.
const maxMessage = 2048

// maxBuffered bounds what the channel may hold unsent before a send is
// dropped, as a full socket buffer drops a datagram.
const maxBuffered = 256 << 10

// dialBrowser connects to the signalling URL: offer with every ICE
// candidate gathered, POST it, apply the answer, wait for the channel to
// open (10 s each). It blocks, so it must not run in a JS callback.
func dialBrowser(url string, deliver func(p []byte)) (Link, error) {
	l := &jsLink{}
	l.pc = js.Global().Get("RTCPeerConnection").New(js.ValueOf(map[string]any{}))
	l.dc = l.pc.Call("createDataChannel", "snapwire", js.ValueOf(map[string]any{
		"negotiated": true, "id": 0, "ordered": false, "maxRetransmits": 0}))
	l.dc.Set("binaryType", "arraybuffer")
	l.out = js.Global().Get("Uint8Array").New(maxMessage)

	opened := make(chan struct{}, 1)
	gathered := make(chan struct{}, 1)
	signal := func(ch chan struct{}) {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	in := make([]byte, maxMessage)
	l.on(l.dc, "onopen", func(js.Value) { signal(opened) })
	l.on(l.dc, "onmessage", func(ev js.Value) {
		data := ev.Get("data")
		if !data.InstanceOf(js.Global().Get("ArrayBuffer")) {
			return // text messages are not ours
		}
		u8 := js.Global().Get("Uint8Array").New(data)
		n := u8.Length()
		if n > len(in) {
			return
		}
		js.CopyBytesToGo(in[:n], u8)
		deliver(in[:n]) // copies; never blocks
	})
	l.on(l.pc, "onicegatheringstatechange", func(js.Value) {
		if l.pc.Get("iceGatheringState").String() == "complete" {
			signal(gathered)
		}
	})
	fail := func(err error) (Link, error) {
		l.Close()
		return nil, err
	}
	offer, err := await(l.pc.Call("createOffer"))
	if err != nil {
		return fail(fmt.Errorf("createOffer: %w", err))
	}
	if _, err := await(l.pc.Call("setLocalDescription", offer)); err != nil {
		return fail(fmt.Errorf("setLocalDescription: %w", err))
	}
	if l.pc.Get("iceGatheringState").String() != "complete" {
		select {
		case <-gathered:
		case <-time.After(10 * time.Second):
			return fail(errors.New("ICE gathering did not complete in 10 s"))
		}
	}
	sdp := l.pc.Get("localDescription").Get("sdp").String()
	ans, err := signalling.Exchange(context.Background(), &http.Client{Timeout: 10 * time.Second}, url, sdp)
	if err != nil {
		return fail(err)
	}
	desc := js.ValueOf(map[string]any{"type": "answer", "sdp": ans})
	if _, err := await(l.pc.Call("setRemoteDescription", desc)); err != nil {
		return fail(fmt.Errorf("setRemoteDescription: %w", err))
	}
	select {
	case <-opened:
	case <-time.After(10 * time.Second):
		return fail(errors.New("the data channel did not open in 10 s"))
	}
	return l, nil
}

// on sets the handler property name of v to f (the event is its
// argument), keeping the js.Func to release at close.
func (l *jsLink) on(v js.Value, name string, f func(ev js.Value)) {
	fn := js.FuncOf(func(this js.Value, args []js.Value) any {
		ev := js.Undefined()
		if len(args) > 0 {
			ev = args[0]
		}
		f(ev)
		return nil
	})
	l.funcs = append(l.funcs, fn)
	l.props = append(l.props, prop{v, name})
	v.Set(name, fn)
}

// await waits for a JS promise.
func await(p js.Value) (js.Value, error) {
	type result struct {
		v   js.Value
		err error
	}
	ch := make(chan result, 1)
	ok := js.FuncOf(func(this js.Value, args []js.Value) any {
		ch <- result{v: args[0]}
		return nil
	})
	bad := js.FuncOf(func(this js.Value, args []js.Value) any {
		ch <- result{err: errors.New(args[0].Call("toString").String())}
		return nil
	})
	defer ok.Release()
	defer bad.Release()
	p.Call("then", ok, bad)
	select {
	case r := <-ch:
		return r.v, r.err
	case <-time.After(10 * time.Second):
		return js.Undefined(), errors.New("promise not settled in 10 s")
	}
}

// Send sends p as one message, or drops it: channel not open, too much
// unsent, or the browser refusing it (an exception, recovered).
func (l *jsLink) Send(p []byte) {
	if len(p) > maxMessage || l.dc.Get("readyState").String() != "open" || l.dc.Get("bufferedAmount").Int() > maxBuffered {
		return
	}
	defer func() { recover() }() // send throws if the channel closed meanwhile
	js.CopyBytesToJS(l.out, p)
	l.dc.Call("send", l.out.Call("subarray", 0, len(p)))
}

func (l *jsLink) Close() error {
	for _, p := range l.props {
		p.v.Set(p.name, js.Null()) // no callback into a released func
	}
	l.props = nil
	l.dc.Call("close")
	l.pc.Call("close")
	for _, f := range l.funcs {
		f.Release()
	}
	l.funcs = nil
	return nil
}
