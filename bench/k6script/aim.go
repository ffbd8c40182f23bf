package k6script

import (
	"fmt"
	"net/url"
	"slices"

	"github.com/middlebench/middlebench/bench/load"
)

// Aim returns a copy of the load config with relative URLs resolved
// against the entry, and TLS verification off for the loopback's
// self-signed certificate.
//
// It is the one rule both generators aim by: the engine's config in
// bench's runner, and the script's requests (k6Requests keeps relative
// URLs relative as Aim resolves them), so the two send the same URLs.
func Aim(c load.Config, entry string) (*load.Config, error) {
	base, err := url.Parse(entry)
	if err != nil {
		return nil, err
	}
	resolve := func(u string) (string, error) {
		ref, err := url.Parse(u)
		if err != nil {
			return "", fmt.Errorf("load url %q: %w", u, err)
		}
		return base.ResolveReference(ref).String(), nil
	}
	if c.URL != "" {
		if c.URL, err = resolve(c.URL); err != nil {
			return nil, err
		}
	}
	c.Requests = slices.Clone(c.Requests)
	for i := range c.Requests {
		if c.Requests[i].URL, err = resolve(c.Requests[i].URL); err != nil {
			return nil, err
		}
	}
	if base.Scheme == "https" {
		c.InsecureSkipTLSVerify = true
	}
	return &c, nil
}
