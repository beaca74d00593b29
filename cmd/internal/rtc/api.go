package rtc

import (
	"log/slog"
	"net"
	"net/netip"
	"time"

	"github.com/pion/ice/v4"
	"github.com/pion/webrtc/v4"
)

// MaxMessage is the largest data-channel message either side accepts: a
// netchan packet (the default MTU is 1400 bytes) with room to spare. It
// is advertised in the SDP (a=max-message-size, RFC 8841 §6) so that a
// compliant peer never sends more; a longer message closes the peer.
const MaxMessage = 2048

// channelID is the data channel's SCTP stream id. Both sides create it
// as a negotiated channel (RFC 8831 §6.5, "negotiated": no DCEP
// handshake, each side states the same parameters), so the server's
// side is unordered with no retransmission whatever the client asks.
const channelID = 0

// Channel is the label of the data channel.
const Channel = "snapwire"

// newAPI returns a pion API: data channels detached (we read into our own
// buffers), UDP over IPv4 only, host candidates only on hostIPs when
// given (loopback included: pion skips loopback unless asked), no mDNS
// (no multicast socket; a browser's mDNS-named candidate is still reached
// as a peer-reflexive one when its checks arrive, RFC 8445 §7.3.1.3),
// pion's logs at debug level on logger (pionLogs), ICE timeouts shorter than pion's defaults so a vanished peer is
// closed in seconds, and no media engine or interceptors.
func newAPI(hostIPs []netip.Addr, logger *slog.Logger) *webrtc.API {
	var se webrtc.SettingEngine
	se.LoggerFactory = pionLogs{logger}
	se.DetachDataChannels()
	se.SetNetworkTypes([]webrtc.NetworkType{webrtc.NetworkTypeUDP4})
	se.SetICEMulticastDNSMode(ice.MulticastDNSModeDisabled)
	se.SetSCTPMaxMessageSize(MaxMessage)
	se.SetICETimeouts(5*time.Second, 10*time.Second, 2*time.Second)
	if len(hostIPs) > 0 {
		keep := append([]netip.Addr(nil), hostIPs...)
		loop := false
		for _, a := range keep {
			loop = loop || a.IsLoopback()
		}
		se.SetIncludeLoopbackCandidate(loop)
		se.SetIPFilter(func(ip net.IP) bool {
			a, ok := netip.AddrFromSlice(ip)
			if !ok {
				return false
			}
			a = a.Unmap()
			for _, k := range keep {
				if a == k {
					return true
				}
			}
			return false
		})
	}
	// No media: an empty media engine and interceptor registry, not
	// pion's defaults, whose RTCP interceptors start four goroutines per
	// peer connection that a data channel never uses.
	return webrtc.NewAPI(webrtc.WithSettingEngine(se), webrtc.WithMediaEngine(nil), webrtc.WithInterceptorRegistry(nil))
}

// channelInit is the data channel both sides create: negotiated id 0,
// unordered, no retransmission (RFC 8831 §6.1).
func channelInit() *webrtc.DataChannelInit {
	f, z, id := false, uint16(0), uint16(channelID)
	t := true
	return &webrtc.DataChannelInit{Ordered: &f, MaxRetransmits: &z, Negotiated: &t, ID: &id}
}
