//go:build !race

package realtimetest

// RaceDetector: this binary runs without the race detector.
const RaceDetector = false
