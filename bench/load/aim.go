package load

import (
	"fmt"
	"net/url"
	"slices"
)

// Aim returns a copy of the config with relative URLs resolved against
// the entry, and TLS verification off for the loopback's self-signed
// certificate.
//
// It is the one rule both generators aim by: the engine's config in
// bench's runner, and the k6 script's requests (bench/k6script keeps
// relative URLs relative as Aim resolves them), so the two send the same
// URLs.
func (c Config) Aim(entry string) (*Config, error) {
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
