package h1

import "testing"

// TestCutField: RFC 9112 §5.1 field lines and §5.2 obs-fold, RFC 9110
// §5.5 field values (obs-text allowed, OWS around the value not part of
// it, control bytes but HTAB refused).
func TestCutField(t *testing.T) {
	for _, tt := range []struct {
		line        string
		name, value string
		next        int
		ok          bool
	}{
		{"Host: example.com\r\n", "Host", "example.com", 19, true},
		{"Host:example.com\r\n", "Host", "example.com", 18, true},
		{"X: \t a \t b \t\r\nY: c\r\n", "X", "a \t b", 14, true},
		{"X:\r\n", "X", "", 4, true},
		{"X:  \r\n", "X", "", 6, true},
		{"X: caf\xc3\xa9\r\n", "X", "caf\xc3\xa9", 10, true}, // obs-text
		{"Server-Timing: app;dur=0.002, queue;dur=0.000\r\n", "Server-Timing", "app;dur=0.002, queue;dur=0.000", 47, true},
		{"Host : example.com\r\n", "", "", 0, false}, // §5.1: no white space before the colon
		{" Host: example.com\r\n", "", "", 0, false}, // a leading space: obs-fold's continuation
		{"\tb\r\n", "", "", 0, false},
		{": v\r\n", "", "", 0, false},              // an empty name
		{"Host example.com\r\n", "", "", 0, false}, // no colon
		{"X(y): v\r\n", "", "", 0, false},          // a name that is no token
		{"X: a\n", "", "", 0, false},               // bare LF
		{"X: a\rb\r\n", "", "", 0, false},          // bare CR
		{"X: a\x00b\r\n", "", "", 0, false},        // NUL
		{"X: a\x7fb\r\n", "", "", 0, false},        // DEL
		{"X: a\x1bb-0123456789\r\n", "", "", 0, false},
		{"X: a", "", "", 0, false},   // no line end yet
		{"X: a\r", "", "", 0, false}, // half a line end
	} {
		f, ok := CutField([]byte(tt.line))
		if ok != tt.ok || ok && (tt.line[:f.Colon] != tt.name || tt.line[f.ValueStart:f.ValueEnd] != tt.value || f.Next != tt.next) {
			t.Errorf("CutField(%q) = %+v %v, want %q %q %d %v", tt.line, f, ok, tt.name, tt.value, tt.next, tt.ok)
		}
	}
}
