package diagnose

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
	"unicode/utf8"
)

// ErrUnreadable is wrapped by every error about an input that is not a
// results file (empty, truncated, malformed, of another kind): the CLI
// exits 2 on it.
var ErrUnreadable = errors.New("unreadable input")

// InputError says what is wrong with an input and where.
type InputError struct {
	Source string
	Line   int64 // 1-based; 0 when the error is not about one line
	Byte   int64 // 1-based offset in the (decompressed) input; 0 when unknown
	Msg    string
	Err    error // underlying error, if any
}

func (e *InputError) Error() string {
	where := e.Source
	if e.Line > 0 {
		where += fmt.Sprintf(": line %d", e.Line)
	}
	if e.Byte > 0 {
		where += fmt.Sprintf(", byte %d", e.Byte)
	}
	return where + ": " + e.Msg
}

// Unwrap exposes ErrUnreadable and the underlying error.
func (e *InputError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrUnreadable, e.Err}
	}
	return []error{ErrUnreadable}
}

// expected lists what ReadFile accepts, for error messages.
const expected = "a middlebench results document, k6 --summary-export or handleSummary JSON, " +
	"k6 --out json (NDJSON) or --out csv (plain or gzipped), or k6's end-of-test summary text"

// Reader reads results files. Its zero value works.
type Reader struct {
	// ServerMetric is the name of the trend that carries the server's own
	// time per request in k6 files (default "server_time").
	ServerMetric string
	// Bucket is the narrowest time bucket of an NDJSON or CSV stream
	// (default 1s); buckets double when a run outgrows MaxBuckets.
	Bucket time.Duration
	// MaxBuckets bounds the time buckets kept (default 48).
	MaxBuckets int
	// MaxNames bounds the per-name breakdown (default 20; the rest is
	// counted under "(other)").
	MaxNames int
	// MaxJSON bounds a whole-file JSON document (default 256 MiB).
	MaxJSON int64
	// MaxBytes bounds the input after decompression (default 2 GiB: a
	// small gzip can expand to any size).
	MaxBytes int64
	// MaxPoints bounds the points of a stream the analyzer uses (default
	// 20,000,000, about 20 s of reading).
	MaxPoints int64
	// Open says the run had an open model (an arrival-rate executor), so
	// that a stream is cut into steps by arrivals per second, not by VUs.
	// k6's NDJSON and CSV do not say which executor ran (the scenario tag is
	// the scenario's name; vus and vus_max look alike in both models), and
	// dropped_iterations appear only once arrivals are dropped: without
	// Open, a stream counts as open only if it dropped some.
	Open bool
	// Closed says the run had a closed model (the user's --executor): a
	// stream is then read as one even where its VUs and arrivals look
	// like an arrival-rate executor's; only dropped iterations, which no
	// closed executor has, still make it open (with a note).
	Closed bool
	// Constant says the run offered one load (constant-vus,
	// constant-arrival-rate): a stream is then one window, never cut into
	// steps where its measured load wanders (a CSV's one-second stamps make
	// the arrivals of a constant rate read 52, 77, 58/s).
	Constant bool
	// Schedule, when set, cuts a stream into these steps instead of finding
	// them where the load changes: a point belongs to the step its time (a
	// request's end, as k6 stamps it) falls in, counted from Origin, as the
	// built-in engine cuts its own steps; what ends after the last step (the
	// graceful stop's drain) is in no step. For a file whose schedule is
	// known, e.g. a replay of an experiment.
	Schedule []ScheduledStep
	// Origin is the run's start (the time zero of Schedule).
	Origin time.Time
}

// ScheduledStep is one step of a known schedule: [Start, End) from the
// run's start, at the load it offers (VUs, or Rate per second for an open
// model; zero: as measured).
type ScheduledStep struct {
	Name       string
	Start, End time.Duration
	VUs        float64
	Rate       float64
}

// The default bounds of a Reader (flags --max-bytes and --max-points
// raise them).
const (
	DefaultMaxBytes  = 2 << 30
	DefaultMaxPoints = 20_000_000
)

func (r Reader) withDefaults() Reader {
	if r.ServerMetric == "" {
		r.ServerMetric = "server_time"
	}
	if r.Bucket <= 0 {
		r.Bucket = time.Second
	}
	if r.MaxBuckets <= 0 {
		r.MaxBuckets = 48
	}
	if r.MaxNames <= 0 {
		r.MaxNames = 20
	}
	if r.MaxJSON <= 0 {
		r.MaxJSON = 256 << 20
	}
	if r.MaxBytes <= 0 {
		r.MaxBytes = DefaultMaxBytes
	}
	if r.MaxPoints <= 0 {
		r.MaxPoints = DefaultMaxPoints
	}
	return r
}

// ReadFile reads one results file of any supported format with the default
// Reader.
func ReadFile(path string) (*Observation, error) {
	return Reader{}.ReadFile(context.Background(), path)
}

// ReadFile reads one results file, detecting its format. A cancelled ctx
// stops a long stream: the Observation of what was read so far is returned
// with ctx's error.
func (r Reader) ReadFile(ctx context.Context, path string) (*Observation, error) {
	f, err := os.Open(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error() // the path is already the error's source
		}
		return nil, &InputError{Source: path, Msg: msg, Err: err}
	}
	defer f.Close()
	return r.Read(ctx, f, filepath.Base(path))
}

// Read reads one results file from rd; name is used in errors and notes.
func (r Reader) Read(ctx context.Context, rd io.Reader, name string) (*Observation, error) {
	r = r.withDefaults()
	br := bufio.NewReaderSize(rd, 64<<10)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &InputError{Source: name, Msg: "gzip header: " + err.Error(), Err: err}
		}
		defer zr.Close()
		in = zr
	}
	br = bufio.NewReaderSize(&capped{r: in, left: r.MaxBytes, limit: r.MaxBytes, flag: "--max-bytes"}, 64<<10)
	head, err := br.Peek(4096)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, &InputError{Source: name, Msg: "reading: " + err.Error(), Err: err}
	}
	var obs *Observation
	switch sniff(head) {
	case sniffEmpty:
		return nil, &InputError{Source: name, Msg: "empty: expected " + expected}
	case sniffNDJSON:
		obs, err = r.readNDJSON(ctx, br, name)
	case sniffJSON:
		obs, err = r.readJSONFile(br, name)
	case sniffCSV:
		obs, err = r.readCSV(ctx, br, name)
	case sniffText:
		obs, err = r.readText(br, name)
	default:
		return nil, &InputError{Source: name, Msg: "not a results file: expected " + expected + "; found " + describe(head)}
	}
	if obs != nil {
		obs.Source = name
		obs.inferModel()
	}
	return obs, err
}

type sniffKind int

const (
	sniffUnknown sniffKind = iota
	sniffEmpty
	sniffNDJSON
	sniffJSON
	sniffCSV
	sniffText
)

// sniff tells the format from the first bytes: an NDJSON line opens with
// k6's "type" or "metric" key, a document with anything else.
func sniff(head []byte) sniffKind {
	b := bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	b = bytes.TrimLeft(b, " \t\r\n")
	switch {
	case len(b) == 0:
		return sniffEmpty
	case b[0] == '{':
		s := jscan{b: b, i: 1}
		s.ws()
		if k, _, err := s.str(); err == nil && (string(k) == "type" || string(k) == "metric") {
			return sniffNDJSON
		}
		return sniffJSON
	case bytes.HasPrefix(b, []byte("metric_name,")):
		return sniffCSV
	case looksLikeText(b) && (bytes.Contains(b, []byte("http_req")) || bytes.Contains(b, []byte("execution:")) ||
		bytes.Contains(b, []byte("TOTAL RESULTS")) || bytes.Contains(b, []byte("/‾‾/"))):
		return sniffText
	}
	return sniffUnknown
}

func looksLikeText(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	// The peek may cut a rune in two: ignore an incomplete tail.
	for len(b) > 0 && !utf8.Valid(b) && len(b) > utf8.UTFMax {
		b = b[:len(b)-1]
	}
	return utf8.Valid(b)
}

// describe says in a few words what a file that is not a results file
// holds.
func describe(head []byte) string {
	b := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")), " \t\r\n")
	switch {
	case len(b) == 0:
		return "only white space"
	case b[0] == '[':
		return "a JSON array"
	case !looksLikeText(b):
		n := min(len(b), 8)
		return fmt.Sprintf("binary data (first bytes % x)", b[:n])
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	if len(line) > 60 {
		line = append(line[:57:57], "..."...)
	}
	return fmt.Sprintf("text starting %q", line)
}

// lineCol turns a byte offset of data into a 1-based line and byte.
func lineCol(data []byte, off int64) (line, byteAt int64) {
	off = min(max(off, 0), int64(len(data)))
	return int64(bytes.Count(data[:off], []byte("\n"))) + 1, off + 1
}
