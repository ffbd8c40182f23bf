package proxy

import (
	"net/http"
	"strings"

	"github.com/middlebench/middlebench/internal/h1"
)

// HeaderConfig adds a response header to every answer that passes the
// box: what a CDN's X-Cache or a gateway's Via does, telling a load test's
// client which path answered it. A header of the same name from the next
// hop stays: the answer carries both values.
type HeaderConfig struct {
	Name  string `yaml:"name"`  // the header's name (an HTTP token)
	Value string `yaml:"value"` // its value (no CR, LF or NUL)
}

// Kind is "header".
func (*HeaderConfig) Kind() string { return "header" }

func (c *HeaderConfig) compile() (Stage, error) {
	if !h1.IsToken(c.Name) {
		return nil, errField("name", "%q is not a header name", c.Name)
	}
	if strings.ContainsAny(c.Value, "\r\n\x00") {
		return nil, errField("value", "must not hold CR, LF or NUL")
	}
	return &headerStage{name: http.CanonicalHeaderKey(c.Name), value: c.Value}, nil
}

type headerStage struct {
	bound
	name, value string
}

// Wrap adds the header before the next handler writes the answer, so that
// the box's own answers (a stage's rejection, a 502) carry it too.
func (s *headerStage) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.c.seen.Add(1)
		s.c.passed.Add(1)
		w.Header().Add(s.name, s.value)
		next.ServeHTTP(w, r)
	})
}
