// Package selfsigned makes in-memory TLS certificates for loopback servers:
// the fake server's --tls and the proxy's TLS terminator, so that nothing is
// written to disk and nothing needs a CA.
package selfsigned

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"time"
)

// DefaultHosts returns the names a loopback certificate is valid for (a
// new slice each call).
func DefaultHosts() []string { return []string{"127.0.0.1", "::1", "localhost"} }

// New returns an ECDSA P-256 certificate, valid from an hour ago for a
// week, for the given IP addresses and DNS names (DefaultHosts() if none).
// P-256 keeps handshakes cheap, so a handshake delay measures the delay,
// not RSA arithmetic.
func New(hosts ...string) (tls.Certificate, error) {
	if len(hosts) == 0 {
		hosts = DefaultHosts()
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("self-signed certificate: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("self-signed certificate: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"middlebench"}, CommonName: hosts[0]},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("self-signed certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("self-signed certificate: %w", err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, nil
}

// Pool returns a pool that trusts cert, for clients that verify.
func Pool(cert tls.Certificate) *x509.CertPool {
	p := x509.NewCertPool()
	if cert.Leaf != nil {
		p.AddCert(cert.Leaf)
	}
	return p
}
