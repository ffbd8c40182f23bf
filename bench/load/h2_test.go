package load

import (
	"net/http/httptest"
	"testing"
)

func TestHTTP2(t *testing.T) {
	s := httptest.NewUnstartedServer(sleepyHandler(0))
	s.EnableHTTP2 = true
	s.StartTLS()
	t.Cleanup(s.Close)
	res, reqs := runPoints(t, &Config{URL: s.URL, VUs: 2, Iterations: 20, InsecureSkipTLSVerify: true,
		Thresholds: ThresholdsOf(map[string][]string{"http_reqs{proto:HTTP/2.0,tls_version:tls1.3}": {"count==20"}})})
	if res.Failed != 0 {
		t.Fatalf("failed: %v", res.ErrorExamples)
	}
	if res.ThresholdsFailed != 0 {
		t.Errorf("not 20 requests tagged proto HTTP/2.0 and tls1.3: %+v", res.Document().Metrics["http_reqs{proto:HTTP/2.0,tls_version:tls1.3}"])
	}
	newConns := 0
	for _, r := range reqs {
		if r[mConnecting] > 0 {
			newConns++
			if r[mTLS] <= 0 {
				t.Error("new HTTP/2 connection without a TLS handshake")
			}
		}
	}
	if newConns != 2 {
		t.Errorf("%d new connections for 2 VUs over HTTP/2", newConns)
	}
	if res.MaxDurationSkew != 0 {
		t.Logf("HTTP/2 duration skew %v", res.MaxDurationSkew)
	}
}
