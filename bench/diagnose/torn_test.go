package diagnose

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestNDJSONCutLastLine: a killed k6 leaves a stream whose last line is
// cut. Every complete line is read, the note says how many bytes at the
// end were dropped and from which byte, and the analysis goes on.
func TestNDJSONCutLastLine(t *testing.T) {
	var whole bytes.Buffer
	for i := range 5 {
		fmt.Fprintf(&whole, `{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T17:38:2%d.1Z","value":1,"tags":{"status":"200"}}}`+"\n", i)
	}
	torn := `{"metric":"http_reqs","type":"Point","data":{"time":"2026-11-29T17:38:`
	o, err := Reader{}.Read(context.Background(), bytes.NewReader(append(whole.Bytes(), torn...)), "cut.json")
	if err != nil {
		t.Fatal(err)
	}
	if o.Requests != 5 {
		t.Errorf("requests %d, want the 5 complete lines", o.Requests)
	}
	want := fmt.Sprintf("the last line (6) was cut: its %d bytes from byte %d on were dropped", len(torn), whole.Len()+1)
	if !hasNote(o.Notes, want) {
		t.Errorf("notes %q lack %q", o.Notes, want)
	}

	// A complete last line without its newline is a line, not a cut.
	o, err = Reader{}.Read(context.Background(), bytes.NewReader(bytes.TrimSuffix(whole.Bytes(), []byte("\n"))), "whole.json")
	if err != nil || o.Requests != 5 || hasNote(o.Notes, "was cut") {
		t.Errorf("whole stream without its last newline: %v requests, notes %q, %v", o.Requests, o.Notes, err)
	}
}

// TestNDJSONCutGzip: a gzipped stream cut short (a killed k6 writing
// --out json=x.gz) is read up to the cut, with a note.
func TestNDJSONCutGzip(t *testing.T) {
	realGz := sample(t, "points.ndjson.gz")
	full, err := Reader{}.Read(context.Background(), bytes.NewReader(realGz), "full.gz")
	if err != nil {
		t.Fatal(err)
	}
	o, err := Reader{}.Read(context.Background(), bytes.NewReader(realGz[:len(realGz)/2]), "cut.gz")
	if err != nil {
		t.Fatal(err)
	}
	if o.Requests <= 0 || o.Requests >= full.Requests {
		t.Errorf("cut stream: %d requests, want some but fewer than the whole's %d", o.Requests, full.Requests)
	}
	if !hasNote(o.Notes, "was cut") && !hasNote(o.Notes, "gzip stream ends early") {
		t.Errorf("notes %q do not say the stream was cut", o.Notes)
	}
}

func hasNote(notes []string, s string) bool {
	for _, n := range notes {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}
