package capture

import (
	"bytes"
	"errors"
	"io"
	"net/netip"
	"os"
	"strings"
	"testing"
	"time"
)

func decodeFile(t *testing.T, name string) *Summary {
	t.Helper()
	f, err := os.Open("../testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var s *Summary
	if strings.HasSuffix(name, ".pcap") {
		s, err = DecodePcap(f, Options{})
	} else {
		s, err = DecodeDemo(f, Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func infoValue(s, key string) string {
	parts := strings.Split(s, "\\")
	for i := 1; i+1 < len(parts); i += 2 {
		if parts[i] == key {
			return parts[i+1]
		}
	}
	return ""
}

// TestSessions decodes the shared session captures and checks them
// against what the fixture README says produced them.
func TestSessions(t *testing.T) {
	cases := []struct {
		file                         string
		packets, s2c, c2s, frags     int
		challenge, clientChallenge   int32
		protocol, qport              int
		framing, name, host, mapname string
	}{
		{"session-68.pcap", 733, 310, 416, 4, -642195320, 1760966064, 68, 28363, "legacy", "fixture68", "snapwire-fixture-68", "oa_dm2"},
		{"session-71.pcap", 728, 311, 410, 4, -580757636, -1832221471, 71, 10933, "ioq3-checksum", "fixture71", "snapwire-fixture-71", "oa_dm3"},
	}
	for _, c := range cases {
		s := decodeFile(t, c.file)
		if s.ParseErrors != 0 || s.Dropped != 0 || s.Undecoded != 0 {
			t.Errorf("%s: %d parse errors %v, %d dropped, %d undecoded", c.file, s.ParseErrors, s.Errors, s.Dropped, s.Undecoded)
		}
		if s.Packets != c.packets || s.OOB != 4 || s.Fragments != c.frags || s.ServerMessages != c.s2c || s.ClientMessages != c.c2s ||
			s.Messages != c.s2c+c.c2s || s.Snapshots != c.s2c-1 || s.InvalidSnapshots != 0 {
			t.Errorf("%s: counts %+v", c.file, s)
		}
		if len(s.Connections) != 1 {
			t.Fatalf("%s: %d connections", c.file, len(s.Connections))
		}
		cn := s.Connections[0]
		if cn.Challenge != c.challenge || cn.ClientChallenge != c.clientChallenge || cn.Protocol != c.protocol ||
			cn.QPort != c.qport || cn.Framing != c.framing || cn.Userinfo["name"] != c.name ||
			cn.Userinfo["rate"] != "25000" || cn.Userinfo["snaps"] != "20" {
			t.Errorf("%s: connection %+v", c.file, cn)
		}
		cs := s.Configstrings
		if infoValue(cs[0], "sv_hostname") != c.host || infoValue(cs[0], "mapname") != c.mapname ||
			infoValue(cs[0], "com_protocol") != cnProto(c.protocol) {
			t.Errorf("%s: serverinfo %q", c.file, cs[0])
		}
		// Every usercmd decoded with the right XOR key: the weapon field
		// (keyed) holds a real weapon number.
		if s.Usercmds < 700 {
			t.Errorf("%s: %d usercmds", c.file, s.Usercmds)
		}
	}
}

func cnProto(p int) string { return map[int]string{68: "68", 71: "71"}[p] }

// TestUsercmdKey checks the decoded usercmds of session-68 directly: with
// a wrong key the keyed fields (weapon, buttons) would be noise.
func TestUsercmdKey(t *testing.T) {
	var log bytes.Buffer
	f, _ := os.Open("../testdata/session-68.pcap")
	defer f.Close()
	if _, err := DecodePcap(f, Options{Log: &log}); err != nil {
		t.Fatal(err)
	}
	moves := 0
	for _, l := range strings.Split(log.String(), "\n") {
		if !strings.Contains(l, "clc_move") {
			continue
		}
		moves++
		if !strings.Contains(l, "buttons=0x0 weapon=2") && !strings.Contains(l, "buttons=0x0 weapon=0") {
			t.Fatalf("implausible usercmd: %s", l)
		}
	}
	if moves < 400 {
		t.Fatalf("%d moves", moves)
	}
	for _, want := range []string{`svc_serverCommand 5 "print \"Cyber-Garg^7 was kicked\n\""`, `svc_serverCommand 6 "cs 544 \"\"\n"`,
		`clc_clientCommand 3 "disconnect"`, "svc_gamestate commandSeq=0 configstrings=26 baselines=93 clientNum=3"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q", want)
		}
	}
}

func TestQueries(t *testing.T) {
	s := decodeFile(t, "queries.pcap")
	if s.ParseErrors != 0 || s.Packets != 14 || s.OOB != 14 || s.Messages != 0 || len(s.OOBMessages) != 14 {
		t.Fatalf("%+v", s)
	}
	want := []string{"getinfo", "infoResponse", "getinfo", "infoResponse", "getstatus", "statusResponse", "getinfo", "infoResponse",
		"getstatus", "statusResponse", "getchallenge", "challengeResponse", "getchallenge", "challengeResponse"}
	for i, m := range s.OOBMessages {
		if m.Command != want[i] {
			t.Errorf("oob %d: %s, want %s", i, m.Command, want[i])
		}
	}
	if d := s.OOBMessages[5].Detail; d != "sv_hostname=snapwire-fixture-68 players=Penguin,Liz,Dark" {
		t.Errorf("statusResponse: %q", d)
	}
	if d := s.OOBMessages[11].Detail; d != "-1015273865 0 68" {
		t.Errorf("bare challengeResponse: %q", d)
	}
}

func TestDemos(t *testing.T) {
	for _, c := range []struct {
		file          string
		n, cmds       int
		host, players string
	}{{"session-68.dm_68", 270, 4, "snapwire-fixture-68", "Cyber-Garg,Liz,Dark,fixture68"}, {"session-71.dm_71", 264, 0, "snapwire-fixture-71", "fixture71"}} {
		s := decodeFile(t, c.file)
		if s.ParseErrors != 0 || s.Messages != c.n || s.Snapshots != c.n-1 || s.ServerCommands != c.cmds {
			t.Errorf("%s: %+v", c.file, s)
		}
		var names []string
		for i := 544; i < 544+64; i++ {
			if v, ok := s.Configstrings[i]; ok {
				names = append(names, infoValue("\\"+v, "n"))
			}
		}
		if infoValue(s.Configstrings[0], "sv_hostname") != c.host || strings.Join(names, ",") != c.players {
			t.Errorf("%s: host %q players %q", c.file, infoValue(s.Configstrings[0], "sv_hostname"), names)
		}
	}
}

// TestPcapLinkTypes writes a tiny capture in each supported framing.
func TestPcapLinkTypes(t *testing.T) {
	d := Datagram{Time: 1500 * time.Millisecond, Src: netip.MustParseAddrPort("127.0.0.1:1000"),
		Dst: netip.MustParseAddrPort("127.0.0.1:27960"), Payload: []byte("\xff\xff\xff\xffgetinfo x")}
	eth := AppendPcapRecord(AppendPcapHeader(nil), d)
	r, err := NewPcapReader(bytes.NewReader(eth))
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.Next()
	if err != nil || got.Src != d.Src || got.Dst != d.Dst || !bytes.Equal(got.Payload, d.Payload) || got.Time != 0 {
		t.Fatalf("ethernet: %+v %v", got, err)
	}
	if _, err := r.Next(); err != io.EOF {
		t.Fatalf("end: %v", err)
	}
	ip := eth[24+16+14:]
	for _, lt := range []struct {
		link   uint32
		header []byte
	}{{LinkNull, []byte{2, 0, 0, 0}}, {LinkRaw, nil}, {LinkSLL, append(make([]byte, 14), 8, 0)}, {LinkSLL2, append([]byte{8, 0}, make([]byte, 18)...)}} {
		b := AppendPcapHeader(nil)
		b[20] = byte(lt.link)
		b[21] = byte(lt.link >> 8)
		rec := append(append([]byte(nil), lt.header...), ip...)
		b = append(b, eth[24:24+8]...)
		b = append(b, byte(len(rec)), byte(len(rec)>>8), 0, 0, byte(len(rec)), byte(len(rec)>>8), 0, 0)
		b = append(b, rec...)
		r, err := NewPcapReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		got, err := r.Next()
		if err != nil || got.Dst != d.Dst || !bytes.Equal(got.Payload, d.Payload) {
			t.Errorf("link %d: %+v %v", lt.link, got, err)
		}
	}
	if _, err := NewPcapReader(bytes.NewReader([]byte("not a pcap file at all!!"))); !errors.Is(err, ErrPcap) {
		t.Errorf("bad magic: %v", err)
	}
	for n := 24; n < len(eth); n++ {
		r, _ := NewPcapReader(bytes.NewReader(eth[:n]))
		if _, err := r.Next(); !errors.Is(err, ErrRecord) && !(n == 24 && err == io.EOF) {
			t.Fatalf("%d-byte prefix: %v", n, err)
		}
	}
}

func FuzzDecodePcap(f *testing.F) {
	raw, _ := os.ReadFile("../testdata/queries.pcap")
	f.Add(raw)
	s68, _ := os.ReadFile("../testdata/session-68.pcap")
	f.Add(s68[:3000])
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := DecodePcap(bytes.NewReader(data), Options{Log: io.Discard})
		if err == nil && s.Messages > s.Packets {
			t.Fatalf("%d messages from %d packets", s.Messages, s.Packets)
		}
	})
}

func BenchmarkDecodeSession68(b *testing.B) {
	raw, _ := os.ReadFile("../testdata/session-68.pcap")
	b.ReportAllocs()
	b.SetBytes(int64(len(raw)))
	var s *Summary
	for b.Loop() {
		s, _ = DecodePcap(bytes.NewReader(raw), Options{})
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*s.Messages), "ns/msg")
}
