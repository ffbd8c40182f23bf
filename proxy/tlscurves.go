package proxy

import (
	"crypto/tls"
	"slices"
	"strings"
)

// tlsCurves are the key exchanges a TLS stage may accept (its curves),
// by the names OpenSSL and nginx's ssl_ecdh_curve give them, in the order
// Go prefers them. The first three are post-quantum hybrids (TLS 1.3 only).
var tlsCurves = []tlsCurve{
	{"X25519MLKEM768", tls.X25519MLKEM768, true},
	{"SecP256r1MLKEM768", tls.SecP256r1MLKEM768, true},
	{"SecP384r1MLKEM1024", tls.SecP384r1MLKEM1024, true},
	{"X25519", tls.X25519, false},
	{"P-256", tls.CurveP256, false},
	{"P-384", tls.CurveP384, false},
	{"P-521", tls.CurveP521, false},
}

type tlsCurve struct {
	name string
	id   tls.CurveID
	pq   bool // a post-quantum hybrid
}

// parseCurves turns the stage's curves into Go's CurvePreferences (nil:
// Go's default, the hybrid X25519MLKEM768 first). Go picks among them by
// its own order, post-quantum first, and one the client sent a key share
// for (another costs a HelloRetryRequest, one more round trip), so the
// list says which are allowed, not in which order. maxVersion 1.2 needs a
// classical one.
func parseCurves(names []string, maxVersion uint16) ([]tls.CurveID, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var ids []tls.CurveID
	classical := false
	for _, n := range names {
		i := slices.IndexFunc(tlsCurves, func(c tlsCurve) bool { return strings.EqualFold(c.name, n) })
		if i < 0 {
			return nil, errField("curves", "%q: want one of %s", n, strings.Join(curveNames(), ", "))
		}
		if slices.Contains(ids, tlsCurves[i].id) {
			return nil, errField("curves", "%s is listed twice", tlsCurves[i].name)
		}
		ids = append(ids, tlsCurves[i].id)
		classical = classical || !tlsCurves[i].pq
	}
	if maxVersion < tls.VersionTLS13 && !classical {
		return nil, errField("curves", "post-quantum key exchanges are TLS 1.3 only; maxVersion 1.2 needs X25519 or P-256, P-384, P-521")
	}
	return ids, nil
}

func curveNames() []string {
	out := make([]string, len(tlsCurves))
	for i, c := range tlsCurves {
		out[i] = c.name
	}
	return out
}

// curveName is the name of a negotiated key exchange ("" for none: TLS 1.2
// with RSA key exchange, which this stage's ECDSA certificate never does).
func curveName(id tls.CurveID) string {
	for _, c := range tlsCurves {
		if c.id == id {
			return c.name
		}
	}
	return ""
}
