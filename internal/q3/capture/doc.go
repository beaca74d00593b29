// Package capture decodes recorded Quake 3 traffic: classic pcap files
// (PcapReader: link types Ethernet, BSD loopback, Linux cooked v1/v2, raw;
// IPv4/UDP) and demos. DecodePcap follows every connection it sees from
// its handshake (challenge, qport, protocol and userinfo from the
// connectionless packets), picks the framing (the ioq3 checksum matches or
// not), reassembles fragments, removes the legacy XOR with keys derived
// from what it has decoded so far, and parses every server and client
// message with package msg, as a passive third party. It is the engine of
// `snapwire q3 dump` and sits on top of all the other q3 packages.
package capture
