package dashboard

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/middlebench/middlebench/internal/timing"
)

// maxStatsBytes bounds what PollServer reads of one /_mb/stats answer.
const maxStatsBytes = 4 << 20

// PollServer returns a Sources.Server that reads a fake server's own view
// from url (its /_mb/stats) each time it is called, within a second; when
// a read fails it returns the last view it read (the zero view before the
// first, which the page shows as unknown, never as zeros).
func PollServer(url string) func() timing.ServerView {
	client := &http.Client{Timeout: time.Second}
	var mu sync.Mutex
	var last timing.ServerView
	return func() timing.ServerView {
		v, err := fetchServerView(client, url)
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			last = v
		}
		return last
	}
}

func fetchServerView(c *http.Client, url string) (timing.ServerView, error) {
	var v timing.ServerView
	err := fetchJSON(c, url, &v)
	return v, err
}

// PollStages returns a Sources.Stages that reads a path's counters from
// url (a proxy's admin /stats) each time it is called, within a second;
// when a read fails it returns the last counters read (nil before the
// first: the page shows no stages).
func PollStages(url string) func() any {
	client := &http.Client{Timeout: time.Second}
	var mu sync.Mutex
	var last json.RawMessage
	return func() any {
		var v json.RawMessage
		err := fetchJSON(client, url, &v)
		mu.Lock()
		defer mu.Unlock()
		if err == nil {
			last = v
		}
		if last == nil {
			return nil
		}
		return last
	}
}

func fetchJSON(c *http.Client, url string, v any) error {
	resp, err := c.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxStatsBytes)).Decode(v); err != nil {
		return fmt.Errorf("%s: %w", url, err)
	}
	return nil
}

// known says whether v is a view a server gave (a server's view always
// covers some time); the zero view is "not read yet".
func known(v timing.ServerView) bool { return v.WindowMs > 0 || v.Requests > 0 || v.ServerTime != nil }
