//go:build race

package realtimetest

// RaceDetector: this binary runs under the race detector, whose slower loop
// and pauses stretch real-time measurements.
const RaceDetector = true
