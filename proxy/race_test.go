//go:build race

package proxy

// raceDetector: this test binary runs under the race detector, whose
// slower loop and pauses stretch real-time measurements (see within).
const raceDetector = true
