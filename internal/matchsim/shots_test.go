package matchsim

import (
	"testing"
	"time"
)

// Acceptance: firing the hitscan shots and keeping the lag-compensation
// history change nothing in the match: the same seconds, bytes and
// prediction errors as without them; and they are fired and checked.
//
// Guards against: a measurement that moved the game (a shot that did
// damage, a history that touched the world), which would change the bench
// figures recorded from these matches.
func TestShotsLeaveTheMatchAlone(t *testing.T) {
	opt := DefaultOptions()
	opt.Clients, opt.Latency, opt.Duration, opt.Warmup = 6, 200*time.Millisecond, 5*time.Second, time.Second
	opt.InterpolateOpponents = true
	plain, err := Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	opt.Shots = true
	shot, err := Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	if plain.Shots != nil || shot.Shots == nil || shot.Shots.Shots < 100 {
		t.Fatalf("shots: %+v without, %+v with", plain.Shots, shot.Shots)
	}
	if shot.KbpsPerClientMean != plain.KbpsPerClientMean || shot.SnapshotBytesMean != plain.SnapshotBytesMean ||
		shot.PredErrorOthersMean != plain.PredErrorOthersMean || shot.Frames != plain.Frames || shot.PacketsSent != plain.PacketsSent {
		t.Errorf("the shots changed the match: %.3f/%.3f kbps, %.1f/%.1f bytes, %.3f/%.3f aim error",
			shot.KbpsPerClientMean, plain.KbpsPerClientMean, shot.SnapshotBytesMean, plain.SnapshotBytesMean,
			shot.PredErrorOthersMean, plain.PredErrorOthersMean)
	}
	s := shot.Shots
	t.Logf("%d shots: hit %.3f, lag-compensated %.3f (+LOS %.3f), behind cover %d/%d/%d, rewind %.1f frames",
		s.Shots, s.HitShare(), s.HitShareLagComp(), s.HitShareLagCompLOS(), s.BehindCover, s.BehindCoverLagComp, s.BehindCoverLagCompLOS, s.RewindMeanFrames)
	if s.HitsLagCompLOS > s.HitsLagComp || s.BehindCoverLagCompLOS > s.BehindCoverLagComp || s.RewindMeanFrames <= 0 {
		t.Errorf("inconsistent figures: %+v", s)
	}
}
