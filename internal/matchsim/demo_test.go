package matchsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/snapwire/snapwire/client"
	"github.com/snapwire/snapwire/game"
	"github.com/snapwire/snapwire/internal/refgame"
)

// The arena's moving entities give the client their positions.
var (
	_ client.Positioner = (*refgame.Player)(nil)
	_ client.Positioner = (*refgame.Rocket)(nil)
)

func shortOptions() Options {
	return Options{Clients: 4, Latency: 100 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.05,
		Duration: 4 * time.Second, Seed: 3}
}

// A lossy match keeps both invariants (DOOM III §4.2: equal bases after
// every apply; the client's states equal the server's at every snapshot)
// and every measurement comes out in range.
func TestRunInvariantsAndFigures(t *testing.T) {
	var progress []int
	opt := shortOptions()
	opt.Progress = func(s Second) { progress = append(progress, s.T) }
	r, err := Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(progress) != 4 || len(r.Seconds) != 4 || progress[3] != 4 {
		t.Fatalf("progress %v, %d seconds", progress, len(r.Seconds))
	}
	if r.BaseMismatches != 0 || r.StateMismatches != 0 || r.DecodeErrors != 0 || r.MeasureErrors != 0 || r.Disconnected != 0 {
		t.Fatalf("invariants: %d base, %d state mismatches, %d decode, %d measure errors, %d disconnected",
			r.BaseMismatches, r.StateMismatches, r.DecodeErrors, r.MeasureErrors, r.Disconnected)
	}
	// 4 clients × ~3.8 s × 20 Hz snapshots, each applied and checked.
	if r.BaseChecks < 4*2*60 || r.StateChecks < 4*60*2 || r.SnapshotsReceived < 4*60 {
		t.Fatalf("too few checks: %d base, %d state, %d snapshots", r.BaseChecks, r.StateChecks, r.SnapshotsReceived)
	}
	if r.Frames != 240 || r.FramesRun < 4*180 {
		t.Fatalf("%d frames, %d run with commands", r.Frames, r.FramesRun)
	}
	for name, v := range map[string]float64{"bitpacking": r.SavedByBitpacking, "delta": r.SavedByDelta, "zrle": r.SavedByZRLE} {
		if !(v > 0 && v < 1) {
			t.Errorf("saved_by_%s = %v", name, v)
		}
	}
	if r.KbpsPerClientMean <= 0 || r.KbpsPerClientMax < r.KbpsPerClientMean || r.KbpsUpPerClientMean <= 0 {
		t.Errorf("kbps %v mean %v max %v up", r.KbpsPerClientMean, r.KbpsPerClientMax, r.KbpsUpPerClientMean)
	}
	if r.SnapshotBytesMean <= 0 || r.SnapshotBytesMean >= r.SnapshotBytesRawMean {
		t.Errorf("snapshot %v B after zrle, %v B before", r.SnapshotBytesMean, r.SnapshotBytesRawMean)
	}
	// The delta re-encoding reproduces the server's snapshots: its mean
	// size matches what the server built (measured over the received ones).
	shadow := float64(r.Bits.Delta) / 8 / float64(r.SnapshotsMeasured)
	if math.Abs(shadow-r.SnapshotBytesRawMean) > 0.05*r.SnapshotBytesRawMean {
		t.Errorf("re-encoded snapshots %.1f B, server built %.1f B", shadow, r.SnapshotBytesRawMean)
	}
	if r.Bits.Naive <= r.Bits.Packed || r.Bits.Full <= r.Bits.Delta || r.Bits.Delta <= r.Bits.ZRLE {
		t.Errorf("bits %+v", r.Bits)
	}
	if r.PredSamplesSelf < 4*150 || r.PredSamplesOthers == 0 || r.PredErrorSelfP99 < 0 || r.PredErrorOthersMean < 0 {
		t.Errorf("prediction: %d/%d samples, %+v", r.PredSamplesSelf, r.PredSamplesOthers, r)
	}
	// Commands arrive early on average and seldom late (DOOM III §2).
	if r.CmdLeadMSMean <= 0 || r.CmdLeadMSMean > 150 || r.LateCmdShare > 0.05 {
		t.Errorf("lead %v ms, late share %v", r.CmdLeadMSMean, r.LateCmdShare)
	}
	if r.PacketsLost == 0 || r.SnapshotsLost == 0 || r.ReliableResends == 0 {
		t.Errorf("5%% loss left no trace: %d packets, %d snapshots lost, %d resends", r.PacketsLost, r.SnapshotsLost, r.ReliableResends)
	}
	if len(r.PerClient) != 4 {
		t.Fatalf("%d clients", len(r.PerClient))
	}
	for _, c := range r.PerClient {
		if c.State != "connected" || c.SnapshotsReceived < 60 || c.KbpsDown <= 0 || c.StateMismatches != 0 {
			t.Errorf("client %+v", c)
		}
	}
}

// Same seed, same match: the run is deterministic (virtual time, seeded
// network and bots).
func TestRunDeterministic(t *testing.T) {
	opt := shortOptions()
	opt.Duration = 2 * time.Second
	a, err := Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	a.WallMS, b.WallMS = 0, 0
	var ja, jb bytes.Buffer
	if err := WriteHTML(&ja, a); err != nil {
		t.Fatal(err)
	}
	WriteHTML(&jb, b)
	if ja.String() != jb.String() || a.Bits != b.Bits || a.PredErrorOthersMean != b.PredErrorOthersMean {
		t.Fatal("two runs with the same seed differ")
	}
}

func TestOptionsValidate(t *testing.T) {
	for _, mod := range []func(*Options){
		func(o *Options) { o.Clients = 0 },
		func(o *Options) { o.Clients = 65 },
		func(o *Options) { o.Loss = 1.5 },
		func(o *Options) { o.Loss = math.NaN() },
		func(o *Options) { o.Latency = -time.Millisecond },
		func(o *Options) { o.Duration = 0 },
		func(o *Options) { o.Warmup = -time.Second },
		func(o *Options) { o.Warmup = o.Duration },
		func(o *Options) { o.Mode = refgame.BotNeverTouch + 1 },
	} {
		o := DefaultOptions()
		mod(&o)
		if _, err := Run(o); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: err %v", o, err)
		}
	}
}

// The state check sees a difference of a single variable.
func TestRecorderDetectsDifference(t *testing.T) {
	w, err := refgame.NewWorld(refgame.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.ClientConnected(0); err != nil {
		t.Fatal(err)
	}
	rec := newRecorder(8)
	fr := rec.record(5, w, game.MaxEntities)
	if rec.at(5) != fr || rec.at(13) != nil || rec.at(4) != nil {
		t.Fatal("window lookup")
	}
	e, typ := w.Entity(0)
	if !fr.equal(0, typ, e, rec.codec) {
		t.Fatal("unchanged player differs")
	}
	if p := fr.find(0); p == nil || !p.hasPos || p.pos[0] != w.Players[0].X {
		t.Fatalf("player record %+v", p)
	}
	w.Players[0].Health--
	if fr.equal(0, typ, e, rec.codec) {
		t.Fatal("changed health not detected")
	}
	if fr.equal(0, typ+1, e, rec.codec) || fr.equal(game.EntityNum(4000), typ, e, rec.codec) {
		t.Fatal("wrong type or missing entity not detected")
	}
}

func TestHTMLSelfContained(t *testing.T) {
	opt := shortOptions()
	opt.Duration = 2 * time.Second
	r, err := Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	if n := strings.Count(s, "<svg"); n != 5 || strings.Count(s, "</svg>") != 5 || !strings.Contains(s, "<polyline") {
		t.Fatalf("%d charts", n)
	}
	for _, bad := range []string{"<script", "src=", "href=", "<link", "@import"} {
		if strings.Contains(s, bad) {
			t.Errorf("report references external content: %q", bad)
		}
	}
}

func TestParseMode(t *testing.T) {
	for _, m := range []refgame.BotMode{refgame.BotDeathmatch, refgame.BotNeverTouch} {
		got, err := ParseMode(ModeName(m))
		if err != nil || got != m {
			t.Errorf("ParseMode(%q) = %v, %v", ModeName(m), got, err)
		}
	}
	if _, err := ParseMode("camper"); !errors.Is(err, ErrOptions) {
		t.Errorf("unknown mode: err %v", err)
	}
}

// The warm-up leaves the match as it is and only narrows the steady-state
// figures: frames, commands, lead and prediction samples of its first
// seconds are not counted; the invariant checks still are.
func TestWarmup(t *testing.T) {
	opt := shortOptions()
	all, err := Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Warmup = 2 * time.Second
	warm, err := Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	if all.WarmupS != 0 || warm.WarmupS != 2 || warm.Mode != "deathmatch" {
		t.Errorf("warmup_s %v, %v; mode %q", all.WarmupS, warm.WarmupS, warm.Mode)
	}
	// The same match: the series and the checks are equal.
	if all.Bits != warm.Bits || all.BaseChecks != warm.BaseChecks || all.StateChecks != warm.StateChecks ||
		len(all.Seconds) != len(warm.Seconds) || all.Seconds[3].PredSelfMean != warm.Seconds[3].PredSelfMean {
		t.Fatal("the warm-up changed the match")
	}
	// 4 clients, 2 s at 60 Hz after the warm-up: exactly 480 frames and
	// self samples; without it the frames since each client's first command.
	if warm.FramesRun != 4*2*60 || warm.PredSamplesSelf != 4*2*60 || all.FramesRun <= warm.FramesRun ||
		all.PredSamplesSelf <= warm.PredSamplesSelf {
		t.Errorf("frames run %d (all %d), self samples %d (all %d)", warm.FramesRun, all.FramesRun,
			warm.PredSamplesSelf, all.PredSamplesSelf)
	}
	if warm.CmdsEarly > warm.FramesRun || all.CmdsEarly > all.FramesRun || warm.EarlyCmdShare <= 0 {
		t.Errorf("early %d/%d (all %d/%d)", warm.CmdsEarly, warm.FramesRun, all.CmdsEarly, all.FramesRun)
	}
	var sum uint64
	for _, c := range warm.PerClient {
		sum += c.FramesRun
	}
	if sum != warm.FramesRun {
		t.Errorf("per-client frames %d, total %d", sum, warm.FramesRun)
	}
}

// The JSON keys README.md documents are all there, with the new ones.
func TestJSONKeys(t *testing.T) {
	b, err := json.Marshal(&Result{PerClient: []ClientResult{{}}})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"clients", "duration_s", "frames", "latency_rtt_ms", "jitter_ms", "loss", "seed", "settings",
		"kbps_per_client_mean", "kbps_per_client_max", "kbps_up_per_client_mean", "snapshot_bytes_raw_mean",
		"snapshot_bytes_mean", "packet_bytes_down_mean", "snapshots_sent", "snapshots_received", "snapshots_lost",
		"snapshots_measured", "snapshots_skipped", "saved_by_bitpacking", "saved_by_delta", "saved_by_zrle", "bits",
		"pred_error_self_mean", "pred_error_self_p99", "pred_error_self_max", "pred_error_others_mean",
		"pred_error_others_p99", "pred_error_others_max", "pred_samples_self", "pred_samples_others",
		"pred_exact_share_self", "pred_exact_share_others", "cmd_lead_ms_mean", "late_cmd_share", "duplicated_cmds",
		"late_cmds", "frames_run", "reliable_resends", "packets_sent", "packets_lost", "base_checks", "base_mismatches",
		"state_checks", "state_mismatches", "decode_errors", "measure_errors", "disconnected", "wall_ms", "seconds",
		"per_client", "mode", "warmup_s", "early_cmd_share", "cmds_early"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no key %q", k)
		}
	}
	pc := m["per_client"].([]any)[0].(map[string]any)
	if _, ok := pc["cmds_early"]; !ok {
		t.Error("per_client has no cmds_early")
	}
}
