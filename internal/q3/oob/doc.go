// Package oob reads and writes Quake 3 connectionless packets (Quake 3 protocol description:
// "Initial handshake"; ioq3 SV_ConnectionlessPacket, CL_ConnectionlessPacket):
// four 0xff bytes and a text command. Requests: getinfo, getstatus,
// getchallenge, connect (its userinfo adaptive-Huffman compressed with
// package huffman). Replies: infoResponse, statusResponse,
// challengeResponse, connectResponse, print, disconnect. Commands are
// tokenized like the engine's Cmd_TokenizeString; info strings are parsed
// with the engine's size limits. It sits beside package netchan: a packet
// whose sequence is -1 belongs here.
package oob
