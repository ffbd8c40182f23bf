package h1

import "testing"

func TestTrimOWS(t *testing.T) {
	for _, tt := range []struct{ s, want string }{
		{"", ""}, {" \t a b \t ", "a b"}, {"a", "a"}, {"\t", ""},
		{"\va\f", "\va\f"},     // OWS is SP and HTAB only (RFC 9110 §5.6.3)
		{"\u00a0a", "\u00a0a"}, // nor NBSP
	} {
		if got := TrimOWS(tt.s); got != tt.want {
			t.Errorf("TrimOWS(%q) = %q, want %q", tt.s, got, tt.want)
		}
		if got := string(TrimOWS([]byte(tt.s))); got != tt.want {
			t.Errorf("TrimOWS([]byte(%q)) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// TestHasToken: RFC 9110 §5.6.1's lists (with its own examples of empty
// elements) and §7.6.1's case-insensitive connection options.
func TestHasToken(t *testing.T) {
	for _, tt := range []struct {
		v, tok string
		want   bool
	}{
		{"close", "close", true},
		{"Close", "close", true},
		{"keep-alive, close", "close", true},
		{"keep-alive,close", "close", true},
		{"keep-alive ,\tCLOSE\t", "close", true},
		{"foo,bar", "bar", true}, // §5.6.1: these three are valid and hold foo and bar
		{"foo ,bar,", "bar", true},
		{"foo , ,bar,charlie", "bar", true},
		{",,,close,,,", "close", true},
		{"", "close", false},
		{",", "close", false},
		{"closed", "close", false},
		{"close-ish, x", "close", false},
		{"cl ose", "close", false},
		{`"close"`, "close", false}, // a quoted string is not the token
		{"clo\u017fe", "close", false},
		{"keep-alive", "", false}, // an empty element is skipped, never matched
		{"a,,b", "", false},
	} {
		if got := HasToken(tt.v, tt.tok); got != tt.want {
			t.Errorf("HasToken(%q, %q) = %v, want %v", tt.v, tt.tok, got, tt.want)
		}
		if got := HasToken([]byte(tt.v), tt.tok); got != tt.want {
			t.Errorf("HasToken([]byte(%q), %q) = %v, want %v", tt.v, tt.tok, got, tt.want)
		}
	}
}
