// Package demo reads and writes Quake 3 demo files (.dm_68, .dm_71; ioq3
// CL_Record_f, CL_WriteDemoMessage, CL_ReadDemoMessage): a sequence of
// [int32 LE serverMessageSequence][int32 LE length][message] records ending
// with -1 -1. The messages are server messages as package msg parses them
// (no netchan header, legacy XOR removed), so a demo is a recording of what
// a client's ClientState was fed.
package demo
