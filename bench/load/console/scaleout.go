package console

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
)

// applySegmentIndex is --execution-segment-index: the segment is the
// index-th of the sequence (from the flags or the file), so that a process
// that knows only its place in the split (a Kubernetes Indexed Job's pod,
// from JOB_COMPLETION_INDEX) needs no shell to spell its segment.
func applySegmentIndex(cfg *load.Config, index *int) error {
	if index == nil {
		return nil
	}
	if cfg.ExecutionSegment != "" {
		return fmt.Errorf("%w: --execution-segment-index: give it or --execution-segment (%q), not both", load.ErrConfig, cfg.ExecutionSegment)
	}
	seg, err := load.SegmentAt(cfg.ExecutionSegmentSequence, *index)
	if err != nil {
		return err
	}
	cfg.ExecutionSegment = seg
	return nil
}

// checkURL checks --results-url or --start-url before the run: an http(s) URL.
func checkURL(flag, raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s %q: want an http:// or https:// URL (e.g. http://merge:8080/results/0)", flag, redacted(raw))
	}
	return nil
}

// redacted is raw with its password (merge's token) shown as xxxxx, for
// messages that end up in logs.
func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(an URL that does not parse)"
	}
	return u.Redacted()
}

// waitStart is --start-url: the run starts when the URL answers 200 ("merge
// --listen" holds each segment's request until every segment has asked),
// so the segments of a split test start together. A receiver not up yet
// is retried for startPatience (pods may wait to be scheduled); a 4xx is
// final.
func waitStart(ctx context.Context, o Options) error {
	if o.StartURL == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, startPatience)
	defer cancel()
	client := &http.Client{}
	for {
		err := getOnce(ctx, client, o.StartURL)
		var final *refusedError
		if err == nil || errors.As(err, &final) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("--start-url %s: no start after %s: %w", o.StartURL, startPatience, err)
		case <-time.After(sendRetry):
		}
	}
}

func getOnce(ctx context.Context, client *http.Client, target string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	return answer(client, req, "--start-url")
}

// startPatience bounds the wait at the start gate.
const startPatience = 30 * time.Minute

// How long the results document is offered to a receiver that is not up
// yet (its pod still starting) before the run gives up.
const (
	sendPatience = 5 * time.Minute
	sendRetry    = 2 * time.Second
)

// sendResults PUTs the results document to --results-url ("middlebench
// merge --listen" receives it). A receiver that cannot be reached or
// answers 5xx is retried for sendPatience; a 4xx (a refused document) is
// final. Interrupting the run does not cancel the send: what was measured
// is still delivered.
func sendResults(ctx context.Context, o Options, doc *metrics.Document) error {
	if o.ResultsURL == "" {
		return nil
	}
	var body bytes.Buffer
	if err := doc.Write(&body); err != nil {
		return fmt.Errorf("--results-url: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), sendPatience)
	defer cancel()
	client := &http.Client{Timeout: time.Minute}
	for {
		err := putOnce(ctx, client, o.ResultsURL, body.Bytes())
		var final *refusedError
		if err == nil || errors.As(err, &final) {
			return err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("--results-url %s: gave up after %s: %w", redacted(o.ResultsURL), sendPatience, err)
		case <-time.After(sendRetry):
		}
	}
}

type refusedError struct{ msg string }

func (e *refusedError) Error() string { return e.msg }

func putOnce(ctx context.Context, client *http.Client, target string, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, target, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return answer(client, req, "--results-url")
}

// answer sends req: nil on 2xx, a refusedError (final) on 4xx, an error
// worth retrying otherwise.
func answer(client *http.Client, req *http.Request, flag string) error {
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode/100 == 2:
		return nil
	case resp.StatusCode/100 == 4:
		return &refusedError{fmt.Sprintf("%s %s: refused (%s): %s", flag, req.URL.Redacted(), resp.Status, bytes.TrimSpace(msg))}
	default:
		return fmt.Errorf("%s: %s", resp.Status, bytes.TrimSpace(msg))
	}
}
