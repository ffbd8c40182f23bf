package merge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/metrics"
)

func put(t *testing.T, url string, body []byte) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(msg)
}

func encodeDoc(t *testing.T, d *metrics.Document) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := d.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Four segments PUT to the receiver, with refusals on the way (another
// test, an overlap, an index out of range, not JSON), merge into what
// Merge makes of the same four, served at /merged.
func TestReceiveMergesWhatArrives(t *testing.T) {
	t0 := time.Now()
	segs := []string{"0:1/4", "1/4:1/2", "1/2:3/4", "3/4:1"}
	var docs []*metrics.Document
	var in []Input
	for i, s := range segs {
		samples := make([]time.Duration, 10+i)
		for k := range samples {
			samples[k] = time.Duration(k+1+10*i) * time.Millisecond
		}
		d := partDoc(t, s, t0, samples, nil)
		docs = append(docs, d)
		in = append(in, Input{Name: s, Doc: d})
	}
	want, err := Merge(in)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	type outcome struct {
		res *Result
		err error
	}
	done := make(chan outcome, 1)
	var out bytes.Buffer
	go func() {
		res, err := Receive(ctx, ReceiveOptions{Options: Options{Stdout: &out}, Listen: "127.0.0.1:0", Expect: 4,
			Wait: time.Minute, Keep: time.Minute, Ready: func(a string) { ready <- a }})
		done <- outcome{res, err}
	}()
	base := "http://" + <-ready

	resp, err := http.Get(base + "/merged")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /merged before any document: %s, want 404", resp.Status)
	}
	if code, msg := put(t, base+"/results/0", encodeDoc(t, docs[0])); code != http.StatusNoContent {
		t.Fatalf("PUT segment 0: %d %s", code, msg)
	}
	other := partDoc(t, segs[1], t0, []time.Duration{time.Millisecond}, nil)
	other.Run.URL = "http://127.0.0.1:9/"
	overlap := partDoc(t, "0:1/4", t0, []time.Duration{time.Millisecond}, nil)
	for _, c := range []struct {
		name, index string
		body        []byte
		code        int
		says        string
	}{
		{"another test", "1", encodeDoc(t, other), http.StatusBadRequest, "run.url"},
		{"overlapping segment", "1", encodeDoc(t, overlap), http.StatusBadRequest, "overlap"},
		{"index out of range", "4", encodeDoc(t, docs[1]), http.StatusNotFound, "want 0..3"},
		{"not an index", "x", encodeDoc(t, docs[1]), http.StatusNotFound, "want 0..3"},
		{"not JSON", "1", []byte("{"), http.StatusBadRequest, "not a results document"},
	} {
		if code, msg := put(t, base+"/results/"+c.index, c.body); code != c.code || !strings.Contains(msg, c.says) {
			t.Errorf("%s: %d %q, want %d saying %q", c.name, code, msg, c.code, c.says)
		}
	}
	for i := 1; i < 4; i++ {
		if code, msg := put(t, fmt.Sprintf("%s/results/%d", base, i), encodeDoc(t, docs[i])); code != http.StatusNoContent {
			t.Fatalf("PUT segment %d: %d %s", i, code, msg)
		}
	}
	// The merge is served once made; wait for it (bounded).
	var served metrics.Document
	for deadline := time.Now().Add(10 * time.Second); ; {
		resp, err := http.Get(base + "/merged")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode == http.StatusOK {
			err = json.NewDecoder(resp.Body).Decode(&served)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			break
		}
		resp.Body.Close()
		if time.Now().After(deadline) {
			t.Fatalf("GET /merged: still %s after 10 s", resp.Status)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, _ := put(t, base+"/results/2", encodeDoc(t, docs[2])); code != http.StatusConflict {
		t.Errorf("a document after the merge: %d, want 409", code)
	}
	cancel()
	got := <-done
	if got.err != nil {
		t.Fatalf("Receive: %v", got.err)
	}
	for _, name := range []string{"http_reqs", "http_req_duration"} {
		for stat, v := range want.Doc.Metrics[name].Values {
			if g := got.res.Doc.Metrics[name].Values[stat]; g != v {
				t.Errorf("%s %s: received merge %v, Merge of the same documents %v", name, stat, g, v)
			}
			if g := served.Metrics[name].Values[stat]; g != v {
				t.Errorf("%s %s: served merge %v, Merge of the same documents %v", name, stat, g, v)
			}
		}
	}
	if got.res.Segments != "0:1" || !strings.Contains(out.String(), "merged 4 documents: execution segments 0:1") {
		t.Errorf("segments %q; printed:\n%s", got.res.Segments, out.String())
	}
}

func TestReceiveGivesUpNamingWhatIsMissing(t *testing.T) {
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		_, err := Receive(context.Background(), ReceiveOptions{Options: Options{Stdout: io.Discard}, Listen: "127.0.0.1:0",
			Expect: 3, Wait: 300 * time.Millisecond, Ready: func(a string) { ready <- a }})
		done <- err
	}()
	base := "http://" + <-ready
	if code, msg := put(t, base+"/results/1", encodeDoc(t, partDoc(t, "1/4:1/2", time.Now(), []time.Duration{time.Millisecond}, nil))); code != http.StatusNoContent {
		t.Fatalf("PUT: %d %s", code, msg)
	}
	err := <-done
	if err == nil || !strings.Contains(err.Error(), "1 of 3 documents (missing: 0,2)") {
		t.Errorf("err %v, want it to name the missing segments 0,2", err)
	}
	for _, o := range []ReceiveOptions{{Expect: 0, Wait: time.Second}, {Expect: 2}} {
		if _, err := Receive(context.Background(), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// The start gate holds each index's request until every index has asked,
// then answers them all; once open it stays open.
func TestReceiveStartGate(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	go func() {
		_, _ = Receive(ctx, ReceiveOptions{Options: Options{Stdout: io.Discard}, Listen: "127.0.0.1:0",
			Expect: 3, Wait: time.Minute, Ready: func(a string) { ready <- a }})
	}()
	base := "http://" + <-ready
	// Alone, index 0 is held: its request outlives a short client timeout.
	short := &http.Client{Timeout: 200 * time.Millisecond}
	if resp, err := short.Get(base + "/start/0"); err == nil {
		resp.Body.Close()
		t.Fatalf("index 0 alone was answered %s, want it held at the gate", resp.Status)
	}
	answered := make(chan int, 2)
	for _, i := range []int{1, 2} {
		go func() {
			resp, err := http.Get(fmt.Sprintf("%s/start/%d", base, i))
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					answered <- i
					return
				}
			}
			answered <- -1
		}()
	}
	// 0 asked (and gave up), 1 and 2 ask: the gate opens for all three.
	for range 2 {
		if i := <-answered; i < 0 {
			t.Fatal("a start request failed")
		}
	}
	resp, err := short.Get(base + "/start/0")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("index 0 after the gate opened: %v %v", resp, err)
	}
	resp.Body.Close()
	if resp, err := http.Get(base + "/start/3"); err != nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("index out of range: %v %v, want 404", resp, err)
	} else {
		resp.Body.Close()
	}
}
