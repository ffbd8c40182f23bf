package k6path

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// scriptOptions is what `k6 inspect` says of the script's own options,
// as far as routing and the analyzer need.
type scriptOptions struct {
	Hosts      json.RawMessage            `json:"hosts"`
	Scenarios  map[string]json.RawMessage `json:"scenarios"`
	Stages     json.RawMessage            `json:"stages"`
	Iterations *int64                     `json:"iterations"`
	Duration   *string                    `json:"duration"`
}

// inspect runs `k6 inspect` on the script with the user's -e values: k6
// reads it (a script k6 cannot read fails here, before anything starts),
// and a script that sets `hosts` itself is refused, since k6 lets the
// script's options override the config file's and the routing would be
// lost.
func inspect(ctx context.Context, k6 string, a *k6Args) (*scriptOptions, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	args := []string{"inspect"}
	for _, kv := range a.env {
		args = append(args, "-e", kv)
	}
	cmd := exec.CommandContext(ctx, k6, append(args, a.script)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("k6 inspect %s: %w\n%s", a.script, err, strings.TrimSpace(stderr.String()))
	}
	var o scriptOptions
	if err := json.Unmarshal(out, &o); err != nil {
		return nil, fmt.Errorf("k6 inspect %s: %w", a.script, err)
	}
	if h := bytes.TrimSpace(o.Hosts); len(h) > 0 && string(h) != "null" {
		return nil, fmt.Errorf("%w: the script's options set hosts (%s), which would replace the hosts that route it into the path", ErrRefused, h)
	}
	return &o, nil
}

// executor is the script's executor as the analyzer reads it: the
// scenarios' one executor, or what k6 makes of vus, stages, iterations
// and duration; "" when the scenarios mix executors.
func (o *scriptOptions) executor() string {
	if len(o.Scenarios) > 0 {
		var only string
		for _, raw := range o.Scenarios {
			var s struct {
				Executor string `json:"executor"`
			}
			if json.Unmarshal(raw, &s) != nil || (only != "" && s.Executor != only) {
				return ""
			}
			only = s.Executor
		}
		return only
	}
	switch {
	case len(bytes.TrimSpace(o.Stages)) > 0 && string(bytes.TrimSpace(o.Stages)) != "null":
		return "ramping-vus"
	case o.Iterations != nil && o.Duration == nil:
		return "shared-iterations"
	}
	return "constant-vus"
}
