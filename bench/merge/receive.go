package merge

import (
	"bytes"
	"context"

	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/middlebench/middlebench/internal/loopback"
)

// ReceiveOptions is `middlebench merge --listen`: instead of reading
// files, receive the N segments' documents over HTTP (PUT /results/INDEX,
// what `load --results-url` sends), merge them when all are in, and serve
// the merge at GET /merged for Keep. A cluster needs no shared volume: the
// load pods reach the merge pod behind a Service.
type ReceiveOptions struct {
	Options               // Output, Stdout: as for files
	Listen  string        // address to listen on, e.g. 0.0.0.0:8080
	Expect  int           // how many documents make the whole test
	Wait    time.Duration // give up when not all arrived by then
	Keep    time.Duration // serve GET /merged this long after the merge
	// Due, when above 0, is how long a segment that passed the start gate
	// has to send its document (see due.go); 0 leaves only Wait.
	Due time.Duration
	// Ready, when set, is told the address once listening (tests, port 0).
	Ready func(addr string)
	// AllowRemote lets Listen be beyond loopback (a pod's 0.0.0.0); it
	// needs Token.
	AllowRemote bool
	// Token, when set, is the shared secret every PUT must carry (bearer,
	// or the password of the URL's user); see guard.go.
	Token string
	// MaxUploads bounds the bodies read at once (0: 2); MaxHeld the bytes
	// of the documents held together (0: 1 GiB).
	MaxUploads int
	MaxHeld    int64
}

// maxDocument bounds one received results document (histograms included).
const maxDocument = 256 << 20

// receiver holds the documents received so far, by segment index.
type receiver struct {
	expect int
	mu     sync.Mutex
	parts  map[int]Input
	merged []byte // the merged document, once merged
	token  string
	slots  chan struct{} // uploads being read
	// held: bytes of the documents in parts (sizes by index); pending:
	// bytes reserved by uploads being read; maxHeld bounds their sum.
	held, pending, maxHeld int64
	sizes                  map[int]int64
	all                    chan struct{} // closed when every part is in
	// The start gate: closed when every index has asked to start.
	starting map[int]bool
	gate     chan struct{}
	due      dueState
	changed  chan struct{} // a start or a document arrived: recompute the bounds
}

// Receive serves until every part arrived (or Wait passed, or ctx ended),
// merges, reports as Run does, and keeps serving the merge for Keep.
func Receive(ctx context.Context, o ReceiveOptions) (*Result, error) {
	if o.Expect < 1 {
		return nil, fmt.Errorf("--expect %d: want the number of segments, at least 1", o.Expect)
	}
	if o.Wait <= 0 {
		return nil, fmt.Errorf("--wait %s: want how long to wait for the documents, above 0", o.Wait)
	}
	if o.Due < 0 {
		return nil, fmt.Errorf("--results-due %s: want 0 (off) or how long a started segment has to send its document", o.Due)
	}
	if err := loopback.CheckListen(o.Listen, o.AllowRemote); err != nil {
		return nil, fmt.Errorf("--listen: %w", err)
	}
	if o.AllowRemote && o.Token == "" {
		return nil, fmt.Errorf("--allow-remote: a receiver beyond loopback needs the shared token (--token-file)")
	}
	if o.MaxUploads <= 0 {
		o.MaxUploads = defaultMaxUploads
	}
	if o.MaxHeld <= 0 {
		o.MaxHeld = defaultMaxHeld
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("--listen: %w", err)
	}
	rc := &receiver{expect: o.Expect, parts: map[int]Input{}, all: make(chan struct{}),
		token: o.Token, slots: make(chan struct{}, o.MaxUploads), maxHeld: o.MaxHeld, sizes: map[int]int64{},
		starting: map[int]bool{}, gate: make(chan struct{}),
		due: dueState{due: o.Due, started: map[int]time.Time{}}, changed: make(chan struct{}, 1)}
	srv := &http.Server{Handler: rc.routes(), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		_ = srv.Close()
		<-served
	}()
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	fmt.Fprintf(o.Stdout, "waiting for %d results documents on http://%s/results/0..%d\n", o.Expect, ln.Addr(), o.Expect-1)
	if err := rc.wait(ctx, o.Wait, served); err != nil {
		return nil, err
	}
	in := rc.inputs()
	res, err := Merge(in)
	if err != nil {
		return nil, err
	}
	var doc bytes.Buffer
	if err := res.Doc.Write(&doc); err != nil {
		return nil, err
	}
	rc.mu.Lock()
	rc.merged = doc.Bytes()
	rc.mu.Unlock()
	if err := report(o.Options, len(in), res); err != nil {
		return nil, err
	}
	if o.Keep > 0 {
		fmt.Fprintf(o.Stdout, "serving the merged document at http://%s/merged for %s\n", ln.Addr(), o.Keep)
		keep := time.NewTimer(o.Keep)
		defer keep.Stop()
		select {
		case <-keep.C:
		case <-ctx.Done():
		}
	}
	return res, nil
}

// wait returns when every part is in, or with why not: Wait passed, a
// started segment's document is overdue, ctx ended or the server failed.
func (rc *receiver) wait(ctx context.Context, wait time.Duration, served <-chan error) error {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	due := time.NewTimer(time.Hour)
	defer due.Stop()
	for {
		next, err := rc.checkDue(time.Now())
		if err != nil {
			return err
		}
		due.Stop()
		var dueC <-chan time.Time
		if !next.IsZero() {
			due.Reset(time.Until(next))
			dueC = due.C
		}
		select {
		case <-rc.all:
			return nil
		case <-timer.C:
			return fmt.Errorf("received %s after %s", rc.missing(), wait)
		case <-ctx.Done():
			return fmt.Errorf("interrupted: received %s", rc.missing())
		case err := <-served:
			return fmt.Errorf("--listen: %w", err)
		case <-rc.changed:
		case <-dueC:
		}
	}
}

func (rc *receiver) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "ok\n") })
	mux.HandleFunc("PUT /results/{index}", rc.put)
	mux.HandleFunc("GET /start/{index}", rc.start)
	mux.HandleFunc("GET /merged", func(w http.ResponseWriter, _ *http.Request) {
		rc.mu.Lock()
		doc := rc.merged
		rc.mu.Unlock()
		if doc == nil {
			http.Error(w, "not merged yet: "+rc.missing(), http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(doc)
	})
	return mux
}

// put receives one segment's document. A second document for the same
// index replaces the first (a pod the Job ran again); a document of
// another test, or one whose segment overlaps another's, is refused with
// 400, which the sender does not retry.
func (rc *receiver) put(w http.ResponseWriter, r *http.Request) {
	if !authorized(r, rc.token) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="middlebench merge"`)
		http.Error(w, "a PUT needs the run's token (Authorization: Bearer TOKEN, or http://user:TOKEN@host/… as --results-url)", http.StatusUnauthorized)
		return
	}
	index, err := strconv.Atoi(r.PathValue("index"))
	if err != nil || index < 0 || index >= rc.expect {
		http.Error(w, fmt.Sprintf("index %q: want 0..%d", r.PathValue("index"), rc.expect-1), http.StatusNotFound)
		return
	}
	select {
	case rc.slots <- struct{}{}:
		defer func() { <-rc.slots }()
	default:
		w.Header().Set("Retry-After", "2")
		http.Error(w, fmt.Sprintf("%d uploads are being read: send again shortly", cap(rc.slots)), http.StatusServiceUnavailable)
		return
	}
	announced := r.ContentLength
	if announced > maxDocument {
		http.Error(w, fmt.Sprintf("the document (%d bytes) is larger than %d bytes", announced, maxDocument), http.StatusRequestEntityTooLarge)
		return
	}
	reserved := announced
	if reserved < 0 {
		reserved = maxDocument // chunked: the worst case until read
	}
	if !rc.reserve(index, reserved) {
		http.Error(w, fmt.Sprintf("the documents held would pass %d bytes: not taken", rc.maxHeld), http.StatusRequestEntityTooLarge)
		return
	}
	kept := false
	var size int64
	defer func() {
		rc.mu.Lock()
		rc.settle(index, reserved, size, kept)
		rc.mu.Unlock()
	}()
	from := r.RemoteAddr
	if h, _, err := net.SplitHostPort(from); err == nil {
		from = h
	}
	x, size, err := readDocument(fmt.Sprintf("segment %d (from %s)", index, from), r.Body, announced, min(reserved, maxDocument))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.merged != nil || rc.complete() {
		http.Error(w, "every segment is in already: a late document is not merged", http.StatusConflict)
		return
	}
	others := []Input{x}
	for i, p := range rc.parts {
		if i != index {
			others = append(others, p)
		}
	}
	if err := checkSameTest(others); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if _, err := checkSegments(others); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rc.parts[index] = x
	kept = true
	rc.noteChange()
	w.WriteHeader(http.StatusNoContent)
	if rc.complete() {
		close(rc.all)
	}
}

// start is the start gate (load --start-url): each index's request is
// held until every index has asked, then all are answered at once, so the
// segments start together wherever and whenever their pods came up. Once
// open it stays open (a pod run again after a disruption starts at once).
func (rc *receiver) start(w http.ResponseWriter, r *http.Request) {
	index, err := strconv.Atoi(r.PathValue("index"))
	if err != nil || index < 0 || index >= rc.expect {
		http.Error(w, fmt.Sprintf("index %q: want 0..%d", r.PathValue("index"), rc.expect-1), http.StatusNotFound)
		return
	}
	rc.mu.Lock()
	rc.starting[index] = true
	now := time.Now()
	rc.due.started[index] = now
	if len(rc.starting) == rc.expect {
		select {
		case <-rc.gate:
		default:
			close(rc.gate)
			rc.due.gateAt = now
		}
	}
	rc.mu.Unlock()
	rc.noteChange()
	select {
	case <-rc.gate:
		_, _ = io.WriteString(w, "go\n")
	case <-r.Context().Done():
	}
}

func (rc *receiver) complete() bool { return len(rc.parts) == rc.expect }

// inputs are the parts in index order.
func (rc *receiver) inputs() []Input {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	idx := make([]int, 0, len(rc.parts))
	for i := range rc.parts {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	out := make([]Input, len(idx))
	for k, i := range idx {
		out[k] = rc.parts[i]
	}
	return out
}

// missing says how many parts are in and which indexes are not.
func (rc *receiver) missing() string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	var miss []string
	for i := 0; i < rc.expect; i++ {
		if _, ok := rc.parts[i]; !ok {
			miss = append(miss, strconv.Itoa(i))
		}
	}
	if len(miss) == 0 {
		return fmt.Sprintf("all %d documents", rc.expect)
	}
	return fmt.Sprintf("%d of %d documents (missing: %s)", rc.expect-len(miss), rc.expect, strings.Join(miss, ","))
}
