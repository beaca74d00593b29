package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestQ3DumpShared runs `snapwire q3 dump --json` on the shared captures
// and demos and checks the acceptance figures of the fixture README.
func TestQ3DumpShared(t *testing.T) {
	dir := "../../internal/q3/testdata/"
	files := []string{"session-68.pcap", "session-68.dm_68", "session-71.pcap", "session-71.dm_71", "queries.pcap"}
	args := []string{"q3", "dump", "--json"}
	for _, f := range files {
		args = append(args, dir+f)
	}
	var out, errOut bytes.Buffer
	if code := run(args, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	type summary struct {
		File          string         `json:"file"`
		Messages      int            `json:"messages"`
		ParseErrors   int            `json:"parse_errors"`
		Snapshots     int            `json:"snapshots"`
		Configstrings map[int]string `json:"configstrings"`
		Connections   []struct {
			QPort    int               `json:"qport"`
			Protocol int               `json:"protocol"`
			Userinfo map[string]string `json:"userinfo"`
		} `json:"connections"`
	}
	var got []summary
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var s summary
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, s)
	}
	if len(got) != len(files) {
		t.Fatalf("%d summaries", len(got))
	}
	want := []struct {
		messages, snapshots int
		host, mapname       string
		qport               int
		name                string
	}{
		{726, 309, "snapwire-fixture-68", "oa_dm2", 28363, "fixture68"},
		{270, 269, "snapwire-fixture-68", "oa_dm2", 0, ""},
		{721, 310, "snapwire-fixture-71", "oa_dm3", 10933, "fixture71"},
		{264, 263, "snapwire-fixture-71", "oa_dm3", 0, ""},
		{0, 0, "", "", 0, ""},
	}
	for i, s := range got {
		w := want[i]
		if s.ParseErrors != 0 || s.Messages != w.messages || s.Snapshots != w.snapshots {
			t.Errorf("%s: messages %d parse_errors %d snapshots %d", s.File, s.Messages, s.ParseErrors, s.Snapshots)
		}
		if w.host != "" && (!strings.Contains(s.Configstrings[0], `\sv_hostname\`+w.host+`\`) || !strings.Contains(s.Configstrings[0], `\mapname\`+w.mapname+`\`)) {
			t.Errorf("%s: configstring 0 %q", s.File, s.Configstrings[0])
		}
		if w.qport != 0 && (len(s.Connections) != 1 || s.Connections[0].QPort != w.qport || s.Connections[0].Userinfo["name"] != w.name) {
			t.Errorf("%s: connections %+v", s.File, s.Connections)
		}
	}
	// The legacy session's player configstrings as the README lists them.
	for i, n := range map[int]string{544: "Cyber-Garg", 545: "Liz", 546: "Dark", 547: "fixture68"} {
		if !strings.HasPrefix(got[1].Configstrings[i], `n\`+n+`\`) {
			t.Errorf("demo 68 configstring %d = %q", i, got[1].Configstrings[i])
		}
	}
}

func TestQ3DumpVerboseAndUsage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"q3", "dump", "../../internal/q3/testdata/session-71.dm_71", "-v"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"svc_gamestate commandSeq=", "svc_snapshot serverTime=", "svc_EOF", "264 messages", "0 parse errors"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if code := run([]string{"q3", "dump"}, &out, &errOut); code != 2 {
		t.Errorf("no files: exit %d", code)
	}
	if code := run([]string{"q3", "nope"}, &out, &errOut); code != 2 {
		t.Errorf("unknown subcommand: exit %d", code)
	}
	if code := run([]string{"q3", "dump", "/nonexistent.pcap"}, &out, &errOut); code != 1 {
		t.Errorf("missing file: exit %d", code)
	}
}
