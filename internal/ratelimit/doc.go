// Package ratelimit holds the leaky buckets of ioq3's SVC_RateLimit
// (code/server/sv_main.c): a bucket lets a burst of requests through, then
// one more per period. Limiter keeps one bucket per source IP address
// (SVC_RateLimitAddress: the address without the port) in a fixed-size
// table indexed by a keyed hash of the address, so its memory never grows
// with the number of senders (a full probe window evicts its stalest
// bucket); Bucket is one bucket for all senders (outboundLeakyBucket).
//
// Both are I/O-free and take the current time as an argument. The Quake 3
// query responder (internal/q3/query), the master server
// (internal/q3/master) and the web token endpoint of snapwire serve use
// them.
package ratelimit
