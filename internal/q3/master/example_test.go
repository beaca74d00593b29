package master_test

import (
	"fmt"
	"net/netip"
	"strings"
	"time"

	"github.com/snapwire/snapwire/internal/q3/master"
)

// A server heartbeats, answers the master's getinfo challenge, and a
// browser's getservers lists it.
func Example() {
	server := netip.MustParseAddrPort("192.0.2.10:27960")
	browser := netip.MustParseAddrPort("198.51.100.5:40000")
	var out [][]byte
	m := master.New(master.Config{}, func(to netip.AddrPort, p []byte) { out = append(out, append([]byte(nil), p...)) })

	m.HandlePacket(0, server, []byte("\xff\xff\xff\xffheartbeat QuakeArena-1\n"))
	challenge := strings.TrimPrefix(string(out[0][4:]), "getinfo ")
	m.HandlePacket(0, server, []byte("\xff\xff\xff\xffinfoResponse\n\\challenge\\"+challenge+"\\protocol\\68\\clients\\3\\sv_maxclients\\16\\hostname\\example"))

	out = nil
	m.HandlePacket(time.Second, browser, []byte("\xff\xff\xff\xffgetservers 68\n"))
	addrs, last, ok := master.ParseServersResponse(out[0])
	fmt.Println(addrs, last, ok)
	// Output: [192.0.2.10:27960] true true
}
