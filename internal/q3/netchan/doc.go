// Package netchan is the Quake 3 packet layer (Quake 3 protocol description: packet headers,
// "Fragments", "XOR keys"; ioq3 code/qcommon/net_chan.c,
// code/server/sv_net_chan.c, code/client/cl_net_chan.c), between the UDP
// socket and package msg.
//
// Header, AppendHeader and ParseHeader handle both layouts: Legacy (Quake
// III 1.32, ioq3 "compat", protocol 68) and Checksummed (ioq3 protocol 71,
// a challenge ^ seq*challenge word after the qport). Chan is an I/O-free
// netchan end: outgoing and incoming sequences, the client's qport,
// fragmentation into FragmentSize pieces and reassembly, drop of duplicates
// and stale packets. ServerXOR and ClientXOR are the legacy scrambling of a
// message (after Huffman coding, before fragmentation) with keys from the
// challenge, the sequence or serverId/messageAcknowledge, and the last
// acknowledged command text; the caller applies them, because the keys
// come from the message layer.
package netchan
