//go:build !race

package server_test

// raceDetector is whether the tests run under the race detector (go test
// -race); see race_on_test.go.
const raceDetector = false
