package oaclient

import (
	"reflect"
	"strings"
	"testing"
)

// Console excerpts of the Debian OpenArena 0.8.8 client (ioq3 1.36)
// playing demos with developer 1, timedemo 1 and nextdemo quit, copied
// from real runs (texture warnings left out).
const (
	glLine = "GL_EXTENSIONS: GL_3DFX_texture_compression_FXT1 GL_ARB_transform_feedback_overflow_query GL_EXT_texture_shadow_lod"

	cleanLog = "--- Common Initialization Complete ---\n" +
		"handle 2: demos/live.dm_71\n" + glLine + "\n" +
		"CM_LoadMap( maps/oa_dm1.bsp, 1 )\n" +
		"stitched 0 LoD cracks\n" +
		"serverCommand: 1 : print \"rec68^7 entered the game\n\"\n" +
		"rec68^7 entered the game\n" +
		"serverCommand: 2 : respawn 0\n" +
		"serverCommand: 5 : chat \"rec68^7: ^2playback check 68\"\n" +
		"serverCommand: 7 : cs 547 \"n\\Dark\\t\\0\\model\\angelyss/dark\"\n" +
		"196 frames 1.6 seconds 119.1 fps 4.0/8.4/499.0/17.8 ms\n" +
		"CL_NextDemo: quit\n" +
		"----- Client Shutdown (Client quit) -----\n"

	illegibleLog = "CM_LoadMap( maps/oa_dm1.bsp, 1 )\n" +
		"serverCommand: 1 : respawn 0\n" +
		"********************\n" +
		"ERROR: CL_ParseServerMessage: Illegible server message\n" +
		"********************\n" +
		"Wrote challenges.cfg\n"

	refusedLog = "--- Common Initialization Complete ---\n" +
		"Protocol 68 not supported for demos\n" +
		"Not found: demos/rec68.dm_71\n" +
		"********************\n" +
		"ERROR: couldn't open demos/rec68.dm_66\n" +
		"********************\n"
)

func TestParse(t *testing.T) {
	r := Parse(cleanLog)
	want := Result{
		Map: "oa_dm1", Frames: 196, Seconds: 1.6, FPS: 119.1, Completed: true, Quit: true,
		ServerCommands: []string{`print "rec68^7 entered the game`, "respawn 0", `chat "rec68^7: ^2playback check 68"`, `cs 547 "n\Dark\t\0\model\angelyss/dark"`},
	}
	if !reflect.DeepEqual(r, want) {
		t.Fatalf("clean log:\n got %+v\nwant %+v", r, want)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name, log, errText string
		errLines           int
	}{
		{"illegible", illegibleLog, "Illegible server message", 1},
		{"refused", refusedLog, "not supported for demos", 3},
		{"no summary", strings.Replace(cleanLog, "196 frames", "frames", 1), "did not play to its end", 0},
		{"no quit", strings.Replace(cleanLog, "CL_NextDemo: quit", "CL_NextDemo: ", 1), "did not quit", 0},
		{"no map", strings.Replace(cleanLog, "CM_LoadMap", "CM_Load", 1), "no map", 0},
		{"delta", strings.Replace(cleanLog, "stitched 0 LoD cracks", "Delta from invalid frame (not supposed to happen!).", 1), "Delta from invalid frame", 1},
		{"truncated", strings.Replace(cleanLog, "stitched 0 LoD cracks", "Demo file was truncated.", 1), "truncated", 1},
	} {
		r := Parse(c.log)
		err := r.Err()
		if err == nil || !strings.Contains(err.Error(), c.errText) || len(r.Errors) != c.errLines {
			t.Errorf("%s: err %v, error lines %q", c.name, err, r.Errors)
		}
	}
}
