//go:build !race

package proxy

const raceDetector = false
