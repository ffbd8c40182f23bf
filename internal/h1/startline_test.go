package h1

import "testing"

// TestParseRequestLine: RFC 9112 §3: method SP request-target SP
// HTTP-version, one SP each, the version's name in upper case (§2.3).
func TestParseRequestLine(t *testing.T) {
	for _, tt := range []struct {
		line, method, target string
		major, minor         int
		ok                   bool
	}{
		{"GET / HTTP/1.1", "GET", "/", 1, 1, true},
		{"GET /where?q=now HTTP/1.1", "GET", "/where?q=now", 1, 1, true}, // §3.2.1's origin-form
		{"GET http://www.example.org/pub/WWW/TheProject.html HTTP/1.1", "GET", "http://www.example.org/pub/WWW/TheProject.html", 1, 1, true},
		{"CONNECT www.example.com:80 HTTP/1.1", "CONNECT", "www.example.com:80", 1, 1, true},
		{"OPTIONS * HTTP/1.1", "OPTIONS", "*", 1, 1, true},
		{"GET / HTTP/1.0", "GET", "/", 1, 0, true},
		{"X-CUSTOM! / HTTP/2.0", "X-CUSTOM!", "/", 2, 0, true}, // any token; the version is the caller's
		{"GET  / HTTP/1.1", "", "", 0, 0, false},               // two SPs
		{"GET / HTTP/1.1 ", "", "", 0, 0, false},
		{" GET / HTTP/1.1", "", "", 0, 0, false},
		{"GET\t/ HTTP/1.1", "", "", 0, 0, false},
		{"GET /a b HTTP/1.1", "", "", 0, 0, false},
		{"GET /a\tb HTTP/1.1", "", "", 0, 0, false},
		{"GET /a\x7f HTTP/1.1", "", "", 0, 0, false},
		{"GET /a\x00 HTTP/1.1", "", "", 0, 0, false},
		{"GET / http/1.1", "", "", 0, 0, false}, // HTTP-name is case-sensitive
		{"GET / HTTP/1.10", "", "", 0, 0, false},
		{"GET / HTTP/11", "", "", 0, 0, false},
		{"GET / HTTP/1", "", "", 0, 0, false},
		{"G(T / HTTP/1.1", "", "", 0, 0, false},
		{"GET /", "", "", 0, 0, false},
		{"", "", "", 0, 0, false},
	} {
		r, ok := ParseRequestLine(tt.line)
		if ok != tt.ok || ok && (r.Method != tt.method || r.Target != tt.target || r.Major != tt.major || r.Minor != tt.minor) {
			t.Errorf("ParseRequestLine(%q) = %+v %v, want %q %q %d.%d %v", tt.line, r, ok, tt.method, tt.target, tt.major, tt.minor, tt.ok)
		}
		if rb, okb := ParseRequestLine([]byte(tt.line)); okb != ok || string(rb.Method) != r.Method || string(rb.Target) != r.Target {
			t.Errorf("ParseRequestLine([]byte(%q)) = %+v %v, the string's %+v %v", tt.line, rb, okb, r, ok)
		}
	}
}

// TestParseStatusLine: RFC 9112 §4: HTTP-version SP status-code SP
// [reason-phrase], the code three digits.
func TestParseStatusLine(t *testing.T) {
	for _, tt := range []struct {
		line         string
		major, minor int
		code         int
		reason       string
		ok           bool
	}{
		{"HTTP/1.1 200 OK", 1, 1, 200, "OK", true},
		{"HTTP/1.0 404 Not Found", 1, 0, 404, "Not Found", true},
		{"HTTP/1.1 204 ", 1, 1, 204, "", true},                               // the empty reason §4 allows
		{"HTTP/1.1 204", 1, 1, 204, "", true},                                // no SP: net/http's leniency, kept
		{"HTTP/1.1 200 \x01\x80\tweird", 1, 1, 200, "\x01\x80\tweird", true}, // §4: a client ignores the reason
		{"HTTP/1.1 999 x", 1, 1, 999, "x", true},                             // 3DIGIT; the range is the caller's
		{"HTTP/1.1 099 x", 1, 1, 99, "x", true},
		{"HTTP/2.0 200 OK", 2, 0, 200, "OK", true},
		{"HTTP/1.1 20 OK", 0, 0, 0, "", false},
		{"HTTP/1.1 2000 OK", 0, 0, 0, "", false},
		{"HTTP/1.1  200 OK", 0, 0, 0, "", false},
		{"HTTP/1.1 2x0 OK", 0, 0, 0, "", false},
		{"HTTP/1.1 +20 OK", 0, 0, 0, "", false},
		{"http/1.1 200 OK", 0, 0, 0, "", false},
		{"HTTP/1.1\t200 OK", 0, 0, 0, "", false},
		{"HTTP/1.1 200\tOK", 0, 0, 0, "", false},
		{"HTTP/1 200 OK", 0, 0, 0, "", false},
		{"ICY 200 OK", 0, 0, 0, "", false},
		{"", 0, 0, 0, "", false},
	} {
		s, ok := ParseStatusLine(tt.line)
		if ok != tt.ok || ok && (s.Major != tt.major || s.Minor != tt.minor || s.Code != tt.code || s.Reason != tt.reason) {
			t.Errorf("ParseStatusLine(%q) = %+v %v, want %d.%d %d %q %v", tt.line, s, ok, tt.major, tt.minor, tt.code, tt.reason, tt.ok)
		}
		if sb, okb := ParseStatusLine([]byte(tt.line)); okb != ok || sb.Code != s.Code || string(sb.Reason) != s.Reason {
			t.Errorf("ParseStatusLine([]byte(%q)) = %+v %v, the string's %+v %v", tt.line, sb, okb, s, ok)
		}
	}
}
