package proxy

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestHeaderStage: every answer through the box carries the configured
// header once, after the next hop's own value of it when there is one, and
// the box's own answers (the next hop down: 502) carry it too.
func TestHeaderStage(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("own") != "" {
			w.Header().Set("X-Path", "origin")
		}
		w.Header().Set("X-Origin", "yes")
		w.Write([]byte("hello"))
	}))
	defer up.Close()
	down := httptest.NewServer(http.NotFoundHandler())
	downURL := down.URL
	down.Close() // a next hop that refuses connections
	const cfg = "boxes: [{stages: [{kind: header, name: x-path, value: via-box}]}]"
	for _, tc := range []struct {
		name, upstream, query string
		status                int
		want                  []string // X-Path's values, in order
		origin                bool     // the next hop's own header passes
	}{
		{"an answer of the next hop", up.URL, "", 200, []string{"via-box"}, true},
		{"the next hop's own value stays", up.URL, "?own=1", 200, []string{"origin", "via-box"}, true},
		{"the box's own 502", downURL, "", 502, []string{"via-box"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startYAML(t, cfg, tc.upstream)
			resp, err := http.Get(p.URL() + "/" + tc.query)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
			if got := resp.Header.Values("X-Path"); !slices.Equal(got, tc.want) {
				t.Errorf("X-Path %q, want %q", got, tc.want)
			}
			if got := resp.Header.Get("X-Origin") == "yes"; got != tc.origin {
				t.Errorf("the next hop's X-Origin passed: %v, want %v", got, tc.origin)
			}
			if s := p.Stats().Boxes[0].Stages[0]; s.Seen != 1 || s.Passed != 1 {
				t.Errorf("the stage counted %d seen, %d passed; want 1 and 1", s.Seen, s.Passed)
			}
		})
	}
}

func TestHeaderConfigErrors(t *testing.T) {
	for _, tc := range []struct{ stage, want string }{
		{"header:value=x", `name: "" is not a header name`},
		{"header:name=X Path,value=x", `name: "X Path" is not a header name`},
	} {
		sc, err := ParseStage(tc.stage)
		if err == nil {
			_, err = sc.Spec.compile()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.stage, err, tc.want)
		}
	}
	if _, err := (&HeaderConfig{Name: "X-Path", Value: "a\r\nb"}).compile(); err == nil || !strings.Contains(err.Error(), "value: must not hold CR, LF or NUL") {
		t.Errorf("a value with CRLF: %v, want the value refused", err)
	}
}
