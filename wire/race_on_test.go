//go:build race

package wire

// raceDetector: the race detector multiplies the CPU of a TLS handshake.
const raceDetector = true
