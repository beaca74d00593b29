// Package bench is `snapwire bench`: it records the reference arena's
// scenarios (scenario.go), encodes every client's snapshots under DOOM III's
// scheme (both channel pipelines: the paper's zrle and zrle with the arena's
// static Huffman table) and under our reimplementation of Quake 3's
// (quake3.go), over lossy links simulated with package netsim, checks that
// every decoded snapshot equals the server's, measures bytes, stage
// reductions, prediction work and the server's steady-state cost, and writes
// BENCHMARKS.md with its plots (report.go, notes.go).
//
// With Node and the pinned packages of peers/ installed (npm ci there), the
// same recorded frames also go through two peer libraries, @colyseus/schema
// and @geckos.io/typed-array-buffer-schema: each recording is exported
// (export.go) and peers/peers.mjs encodes it, decodes it with each library's
// own decoder and checks it against the recording (peers.go).
//
// It is internal: the command is its interface, and the JSON rows
// (`snapwire bench --json`) are the stable output.
package bench
