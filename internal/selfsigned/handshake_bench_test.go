//go:build unix

package selfsigned

import (
	"crypto/tls"
	"net"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkHandshake is what a full handshake with this package's
// certificate costs above its round trips: both ends' CPU, in memory
// (net.Pipe), reported as cpu-ns/op (the process's CPU time, which a
// loaded machine does not inflate as it does ns/op). "default" is Go's
// key exchange, which since Go 1.24 is the hybrid X25519MLKEM768 in TLS
// 1.3, as real k6 built with Go offers it; "X25519" the classical one.
func BenchmarkHandshake(b *testing.B) {
	cert, err := New()
	if err != nil {
		b.Fatal(err)
	}
	for _, v := range []struct {
		name    string
		version uint16
		curves  []tls.CurveID
	}{
		{"TLS1.3-default", tls.VersionTLS13, nil},
		{"TLS1.3-X25519", tls.VersionTLS13, []tls.CurveID{tls.X25519}},
		{"TLS1.2-default", tls.VersionTLS12, nil},
	} {
		b.Run(v.name, func(b *testing.B) {
			srv := &tls.Config{Certificates: []tls.Certificate{cert}, SessionTicketsDisabled: true, CurvePreferences: v.curves}
			cli := &tls.Config{RootCAs: Pool(cert), ServerName: "127.0.0.1", MinVersion: v.version, MaxVersion: v.version, CurvePreferences: v.curves}
			cpu0 := processCPU()
			for b.Loop() {
				a, z := net.Pipe()
				done := make(chan error, 1)
				go func() { done <- tls.Server(z, srv).Handshake() }()
				if err := tls.Client(a, cli).Handshake(); err != nil {
					b.Fatal(err)
				}
				if err := <-done; err != nil {
					b.Fatal(err)
				}
				a.Close()
				z.Close()
			}
			b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}

func processCPU() int64 {
	var ru unix.Rusage
	_ = unix.Getrusage(unix.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}
