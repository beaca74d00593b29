package oob_test

import (
	"fmt"

	"github.com/snapwire/snapwire/internal/q3/oob"
)

// A client's connect as the engine sends it (its userinfo compressed with
// the adaptive Huffman coder from byte 12), read on the server's side:
// recognise a connectionless packet, parse it, read the info string. The
// server's answer is plain text, parsed on the client's side.
func Example() {
	var userinfo oob.Info
	for _, kv := range [][2]string{{"name", "UnnamedPlayer"}, {"rate", "25000"}, {"snaps", "20"},
		{"model", "sarge"}, {"headmodel", "sarge"}, {"handicap", "100"}, {"sex", "male"},
		{"protocol", "68"}, {"qport", "1234"}, {"challenge", "-9938504"}} {
		userinfo.Set(kv[0], kv[1])
	}
	pkt, err := (&oob.Connect{Userinfo: userinfo.String()}).Append(nil)
	fmt.Printf("%q..., %d bytes for %d of userinfo, %v\n", pkt[:12], len(pkt), len(userinfo.String()), err)

	m, err := oob.ParseClientPacket(pkt)
	in, _ := oob.ParseInfo(m.(*oob.Connect).Userinfo, oob.MaxInfoString)
	fmt.Println(oob.IsOOB(pkt), m.Command(), in.Value("name"), in.Value("qport"), in.Value("challenge"), err)

	reply, _ := (&oob.ConnectResponse{Challenge: -9938504, HasChallenge: true}).Append(nil)
	r, err := oob.ParseServerPacket(reply)
	fmt.Printf("%q %+v %v\n", reply, r, err)
	// Output:
	// "\xff\xff\xff\xffconnect "..., 124 bytes for 131 of userinfo, <nil>
	// true connect UnnamedPlayer 1234 -9938504 <nil>
	// "\xff\xff\xff\xffconnectResponse -9938504" &{Challenge:-9938504 HasChallenge:true} <nil>
}
