// Package proxy is a Quake 3 man in the middle for experiments, like the
// companion proxy of the Quake 3 protocol description (Fedoryński): it sits between
// a real client and a real server, logs every message both ways parsed
// (connectionless commands, netchan headers, svc_/clc_ ops, with the
// legacy XOR keys recovered from the handshake it watches, the way
// package capture decodes a pcap), and delays and drops packets with
// netsim's link model (LinkConfig: latency, jitter, loss, duplication,
// reordering, bandwidth).
//
// Tap is the decoder: one per proxy, following every client by its
// address. Proxy is the I/O-free core: packets go in with FromClient and
// FromServer at a time now, cross a netsim.Network (one virtual endpoint
// per client and one for the server, the up and down LinkConfigs on the
// two directions), and come out of Advance, which hands each delivered
// packet to the caller and to the Tap. Run is the real-time UDP runner:
// one listening socket for clients, one upstream socket per client (so
// the server tells them apart), one goroutine owning the Proxy.
package proxy
