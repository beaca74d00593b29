// Package q3 is the root of snapwire's Quake 3 protocol implementation,
// bit for bit compatible with id's Quake III Arena 1.32 and ioquake3
// (OpenArena), so real engines are test peers and real traffic can be
// inspected. The code lives in sub-packages, one per layer, bottom up:
//
//	huffman   the fixed code (built from msg_hData) and the adaptive coder
//	msg       the Huffman bit stream, entity/playerstate/usercmd deltas,
//	          server and client messages, and ClientState (configstrings,
//	          baselines, the 32-snapshot ring) that parsing feeds
//	netchan   packet headers, sequencing, qport, 1300-byte fragments,
//	          the legacy XOR scrambling and ioq3's protocol-71 checksum
//	oob       connectionless packets: getinfo, getstatus, getchallenge,
//	          connect (adaptive Huffman userinfo), responses, info strings
//	demo      .dm_68 / .dm_71 files
//	capture   a classic pcap reader and a passive decoder that follows
//	          handshakes, keys and both directions of every connection
//	client    a client without renderer or game code: connects to a real
//	          server, follows gamestate and snapshots, records demos
//	proxy     a man in the middle between a real client and server that
//	          logs every message both ways, with simulated latency and loss
//	query     answers getinfo and getstatus, rate-limited per address, so
//	          server browsers and qstat list a server
//	master    a master server: verified heartbeats, getservers listings
//
// and, for these packages only, internal/follow (one connection followed
// passively from both directions, for capture and proxy) and
// internal/golden (golden-file comparison for the wire tests).
//
// The source of every rule is the Quake 3 protocol description (Fedoryński)
// and ioq3's code/qcommon/{msg,huffman,net_chan}.c,
// code/server/sv_net_chan.c and code/client/cl_{net_chan,parse,input}.c;
// comments name the engine function each piece mirrors.
package q3
