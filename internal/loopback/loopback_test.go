package loopback

import (
	"strings"
	"testing"
)

func TestCheckListen(t *testing.T) {
	for _, tt := range []struct {
		addr   string
		remote bool
		want   string // "" = allowed; else a part of the error
	}{
		{"", false, ""},
		{"127.0.0.1:8080", false, ""},
		{"127.3.4.5:0", false, ""},
		{"[::1]:8080", false, ""},
		{"localhost:8080", false, ""},
		{":8080", false, "every interface"},
		{"0.0.0.0:8080", false, "every interface"},
		{"[::]:8080", false, "every interface"},
		{"192.168.1.20:8080", false, "not a loopback address"},
		{"10.0.0.1:80", false, "not a loopback address"},
		{"example.com:80", false, "host name"},
		{"127.0.0.1", false, "host:port"},
		{"0.0.0.0:8080", true, ""},
		{"192.168.1.20:8080", true, ""},
		{"8080", true, "host:port"},
	} {
		err := CheckListen(tt.addr, tt.remote)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckListen(%q, %v) = %v, want allowed", tt.addr, tt.remote, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckListen(%q, %v) = %v, want an error saying %q", tt.addr, tt.remote, err, tt.want)
		case err != nil && tt.want != "host:port" && !strings.Contains(err.Error(), "--allow-remote"):
			t.Errorf("CheckListen(%q) = %v: does not say how to allow it", tt.addr, err)
		}
	}
}
