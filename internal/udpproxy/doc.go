// Package udpproxy is a real-time UDP proxy that applies netsim's link
// model (netsim.LinkConfig: latency, jitter, loss, duplication,
// reordering, a bandwidth cap with a bounded tail-drop queue, an MTU) to
// real programs: clients send to the proxy, which forwards each client's
// packets to one server from an upstream socket of its own and the
// server's replies back, deciding every packet's fate with the same
// planner netsim.Network uses in virtual time (reached through
// internal/netsimhook, so there is one model). The companion proxy of the
// Quake 3 protocol description (Fedoryński) does the same to experiment
// with latency and loss. It backs the "snapwire proxy" command.
package udpproxy
