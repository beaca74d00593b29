package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/snapwire/snapwire/internal/acceptance"
	"github.com/snapwire/snapwire/internal/oaclient"
	"github.com/snapwire/snapwire/internal/oaserver"
	"github.com/snapwire/snapwire/internal/q3/demo"
	"github.com/snapwire/snapwire/internal/q3/msg"
)

// recordedDemo is a demo our client wrote during a live session.
type recordedDemo struct {
	proto     int
	path      string
	records   int
	snapshots int
	say       string
}

// TestRealClientPlaysRecordedDemo records 10 s from a real OpenArena
// server (dual mode, one bot, a second bot joining mid-recording, a chat
// line) with our client, once as protocol 71 (.dm_71) and once as
// protocol 68 (.dm_68), and plays both demos back with the real OpenArena
// client headless (package oaclient: Xvfb, llvmpipe, timedemo 1, nextdemo
// quit). The real client must load the map, execute the chat and
// configstring commands the demo carries, render about one frame per
// recorded snapshot, reach the end marker and quit, with no error line.
// A control plays a copy with one message replaced by an illegible one
// and must see the client's "Illegible server message" error, so the
// check can fail.
//
// It skips without openarena-server (SNAPWIRE_REQUIRE_Q3=1 fails) or
// without the client and Xvfb (SNAPWIRE_REQUIRE_Q3_CLIENT=1 fails).
func TestRealClientPlaysRecordedDemo(t *testing.T) {
	acceptance.Require(t, "q3demo")
	oaserver.Need(t, oaserver.Binary)
	oaclient.Need(t)
	const d = 10 * time.Second
	if dl, ok := t.Deadline(); ok && time.Until(dl) < d+150*time.Second {
		t.Fatalf("test deadline too close for record and playback (%v left)", time.Until(dl))
	}
	srv := oaserver.Start(t, oaserver.Options{Bots: []string{"Liz"}})
	dir := t.TempDir()

	demos := make([]recordedDemo, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, proto := range []int{71, 68} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			demos[i], errs[i] = recordLive(srv.Addr, proto, d, dir)
		}()
	}
	// A player joining while both record: configstring and print commands
	// in the middle of the demos.
	join := time.AfterFunc(d/3, func() { srv.Command("addbot Dark 1") })
	defer join.Stop()
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "illegible.dm_71")
	if err := writeIllegible(demos[0].path, bad); err != nil {
		t.Fatal(err)
	}

	t.Run("protocol71", func(t *testing.T) { t.Parallel(); playback(t, demos[0], false) })
	t.Run("protocol68", func(t *testing.T) { t.Parallel(); playback(t, demos[1], true) })
	t.Run("control", func(t *testing.T) {
		t.Parallel()
		pb := play(t, bad, false)
		if pb.Err() == nil || !strings.Contains(strings.Join(pb.Errors, "\n"), "CL_ParseServerMessage: Illegible server message") {
			t.Errorf("the real client took a demo with an illegible message: err %v, errors %q, %d frames", pb.Err(), pb.Errors, pb.Frames)
		}
		t.Logf("control: client stopped after %v with %q", pb.Elapsed.Round(time.Millisecond), pb.Errors)
	})
}

// recordLive connects to server as protocol proto for d, says a line and
// records the session to dir/live.dm_<proto>.
func recordLive(server netip.AddrPort, proto int, d time.Duration, dir string) (recordedDemo, error) {
	rd := recordedDemo{proto: proto, path: filepath.Join(dir, fmt.Sprintf("live.dm_%d", proto)), say: fmt.Sprintf("playback check %d", proto)}
	cn, err := Dial(Config{Name: fmt.Sprintf("rec%d", proto), Protocol: proto, Seed: uint64(100 + proto), Commands: []string{"say " + rd.say}}, netip.AddrPort{}, server)
	if err != nil {
		return rd, err
	}
	defer cn.Close()
	f, err := os.Create(rd.path)
	if err != nil {
		return rd, err
	}
	defer f.Close()
	if err := cn.Record(f); err != nil {
		return rd, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), d+10*time.Second)
	defer cancel()
	runErr := cn.Run(ctx, d, nil)
	rd.records, err = cn.StopRecord()
	if err = errors.Join(runErr, err, f.Close()); err != nil {
		return rd, fmt.Errorf("protocol %d: %w", proto, err)
	}
	st := cn.Stats()
	rd.snapshots = st.Snapshots
	if st.ParseErrors != 0 || st.Snapshots < 100 || rd.records < 100 {
		return rd, fmt.Errorf("protocol %d: %d parse errors, %d snapshots, %d records: %v", proto, st.ParseErrors, st.Snapshots, rd.records, st.Errors)
	}
	return rd, nil
}

// play runs the real client on a demo and fails the test when the client
// could not be run.
func play(t *testing.T, path string, proto68 bool) *oaclient.Playback {
	t.Helper()
	pb, err := oaclient.PlayDemo(context.Background(), t.TempDir(), path, oaclient.Options{Protocol68: proto68, Timeout: 120 * time.Second})
	if err != nil {
		if pb != nil {
			t.Logf("client console (last 4000 bytes):\n%s", tail(pb.Log, 4000))
		}
		t.Fatal(err)
	}
	return pb
}

func playback(t *testing.T, rd recordedDemo, proto68 bool) {
	pb := play(t, rd.path, proto68)
	if err := pb.Err(); err != nil {
		t.Errorf("%s: %v\nclient console (last 4000 bytes):\n%s", filepath.Base(rd.path), err, tail(pb.Log, 4000))
		return
	}
	t.Logf("%s (%d records, %d snapshots): real client played %d frames of %s in %.1f s (%.0f fps), run %v, %d server commands",
		filepath.Base(rd.path), rd.records, rd.snapshots, pb.Frames, pb.Map, pb.Seconds, pb.FPS, pb.Elapsed.Round(time.Millisecond), len(pb.ServerCommands))
	if pb.Map != "oa_dm1" {
		t.Errorf("map %q", pb.Map)
	}
	// timedemo renders one frame per snapshot; the first snapshots go to
	// the cgame's start (CL_FirstSnapshot), the last ones may not be
	// reached before the end marker, and a slow machine may count the
	// frame drawn as the end marker is read (197 frames of 196 snapshot
	// records seen with both cores loaded): at most one frame per record.
	if snaps := rd.records - 1; pb.Frames < snaps-10 || pb.Frames > rd.records {
		t.Errorf("real client rendered %d frames of %d snapshot records", pb.Frames, snaps)
	}
	var chat, cs bool
	for _, c := range pb.ServerCommands {
		chat = chat || strings.HasPrefix(c, "chat ") && strings.Contains(c, rd.say)
		cs = cs || strings.HasPrefix(c, "cs ")
	}
	if !chat || !cs {
		t.Errorf("server commands the real client executed lack our chat line (%v) or a configstring change (%v): %q", chat, cs, pb.ServerCommands)
	}
}

// writeIllegible copies the demo with the body of its middle record
// replaced by a message whose first op is 50, which no server sends
// (ioq3 CL_ParseServerMessage: "Illegible server message").
func writeIllegible(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	var recs []demo.Message
	r := demo.NewReader(in)
	for {
		m, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		m.Data = append([]byte(nil), m.Data...)
		recs = append(recs, m)
	}
	var w msg.Writer
	w.Reset(nil, 0)
	w.WriteInt32(0) // reliable acknowledge
	w.WriteUint8(50)
	w.WriteUint8(uint8(msg.SvcEOF))
	recs[len(recs)/2].Data = w.Bytes()
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	dw := demo.NewWriter(out)
	for _, m := range recs {
		if err := dw.WriteMessage(m.Sequence, m.Data); err != nil {
			out.Close()
			return err
		}
	}
	return errors.Join(dw.Close(), out.Close())
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
