//go:build race

package server_test

// raceDetector is whether the tests run under the race detector (go test
// -race), which makes the long single-goroutine runs in virtual time
// several times slower without anything to find in them.
const raceDetector = true
