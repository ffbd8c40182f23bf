package k6script

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"text/template"

	"github.com/middlebench/middlebench/bench/experiment"
	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/internal/atomicfile"
)

// Script is the k6 script of one run, generated from the experiment
// file: the YAML is the only description of a run, for both generators.
type Script struct {
	Run  string // the run's name
	File string // a file name for it: <id>-<n>.js
	Src  []byte
}

// PlaceholderEntry stands in for the entry while a config is validated:
// the script reads the real one from -e TARGET=….
const PlaceholderEntry = "http://127.0.0.1:1"

// Scripts generates the script of each run of e, or of the one named.
func Scripts(e *experiment.Experiment, runName string) ([]Script, error) {
	var out []Script
	for i := range e.Runs {
		rs := &e.Runs[i]
		if runName != "" && rs.Name != runName {
			continue
		}
		src, err := ForRun(e, rs)
		if err != nil {
			return nil, fmt.Errorf("%s: run %q: k6 script: %w", e.ID, rs.Name, err)
		}
		out = append(out, Script{Run: rs.Name, File: fmt.Sprintf("%s-%d.js", e.ID, i+1), Src: src})
	}
	if len(out) == 0 {
		if _, err := e.RunNamed(runName); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// k6Request is one request of the mix as the script sends it.
type k6Request struct {
	Method   string            `json:"method"`
	Path     string            `json:"url"` // relative to TARGET, or absolute
	Headers  map[string]string `json:"headers,omitempty"`
	BodySize int64             `json:"bodySize,omitempty"`
	Name     string            `json:"name,omitempty"`
	Weight   float64           `json:"weight"`
}

// ForRun is the script of e's run rs.
func ForRun(e *experiment.Experiment, rs *experiment.RunSpec) ([]byte, error) {
	aimed, err := rs.Load.Aim(PlaceholderEntry)
	if err != nil {
		return nil, err
	}
	if err := aimed.Validate(); err != nil {
		return nil, err
	}
	c := &rs.Load
	opts, err := k6OptionsOf(c)
	if err != nil {
		return nil, err
	}
	if !c.Think.IsFixed() {
		return nil, fmt.Errorf("think: %s: only a fixed think time has a k6 translation", c.Think)
	}
	cpu := c.ClientCPU.D()
	if cpu%1e6 != 0 {
		return nil, fmt.Errorf("clientCPU: %s: a k6 script spins on Date.now(), in whole milliseconds", c.ClientCPU)
	}
	reqs, err := k6Requests(c)
	if err != nil {
		return nil, err
	}
	optJSON, err := json.MarshalIndent(opts, "", "  ")
	if err != nil {
		return nil, err
	}
	reqJSON, err := json.MarshalIndent(reqs, "", "  ")
	if err != nil {
		return nil, err
	}
	timeout := ""
	if c.Timeout > 0 {
		timeout = c.Timeout.String()
	}
	stm := c.ServerTimingMetric
	if stm == "" {
		stm = load.DefaultServerTiming
	}
	var b bytes.Buffer
	err = k6Template.Execute(&b, map[string]any{
		"File":         filepath.ToSlash(e.File),
		"ID":           e.ID,
		"Run":          rs.Name,
		"RunJS":        jsString(rs.Name),
		"Options":      string(optJSON),
		"Requests":     string(reqJSON),
		"ClientCPUms":  cpu.Milliseconds(),
		"ThinkS":       c.Think.Mean().Seconds(),
		"Timeout":      jsString(timeout),
		"Compress":     c.Compress,
		"ServerTiming": jsString(stm),
	})
	return b.Bytes(), err
}

// k6Requests is the run's mix with URLs relative to the entry kept
// relative (the script prefixes TARGET), as load.Config.Aim resolves them.
func k6Requests(c *load.Config) ([]k6Request, error) {
	mix := c.Requests
	if len(mix) == 0 {
		mix = []load.Request{{Method: c.Method, URL: c.URL, Headers: c.Headers, BodySize: c.BodySize, Weight: 1}}
	}
	base, _ := url.Parse(PlaceholderEntry + "/")
	out := make([]k6Request, len(mix))
	for i, r := range mix {
		ref, err := url.Parse(r.URL)
		if err != nil {
			return nil, fmt.Errorf("url %q: %w", r.URL, err)
		}
		path := r.URL
		if !ref.IsAbs() {
			path = strings.TrimPrefix(base.ResolveReference(ref).String(), PlaceholderEntry)
		}
		m := r.Method
		if m == "" {
			m = "GET"
		}
		w := r.Weight
		if w == 0 {
			w = 1
		}
		out[i] = k6Request{Method: m, Path: path, Headers: r.Headers, BodySize: r.BodySize.Bytes(), Name: r.Name, Weight: w}
	}
	return out, nil
}

func jsString(s string) string {
	b, _ := json.Marshal(s) // a JSON string is a JS string literal
	return string(b)
}

// k6Template is the script. Its functions do what the engine does per
// iteration: pick a request of the mix by weight, send it (a body of the
// engine's pattern: 'a'…'z' repeated within 32 KiB blocks), record the
// server's Server-Timing durations, spin, think.
var k6Template = template.Must(template.New("k6").Parse(`// Generated from {{.File}}, run {{.RunJS}}; do not edit: edit the YAML.
//   middlebench run {{.File}} --k6-script -o DIR   regenerates it
//   middlebench run {{.File}} --serve-only --run {{.RunJS}}
//   k6 run -e TARGET=<the URL it prints> --summary-export=summary.json {{.ID}}-N.js
import http from 'k6/http';
import { sleep } from 'k6';
import { Trend } from 'k6/metrics';

export const options = {{.Options}};

const TARGET = (__ENV.TARGET || 'http://127.0.0.1:8080').replace(/\/$/, '');
const REQUESTS = {{.Requests}};
const CLIENT_CPU_MS = {{.ClientCPUms}};
const THINK_S = {{.ThinkS}};
const TIMEOUT = {{.Timeout}};
const COMPRESS = {{.Compress}};
const SERVER_TIMING = {{.ServerTiming}};

// The server's own time, as middlebench's engine reads it: its work
// (SERVER_TIMING;dur=) and its wait for a worker (queue;dur=).
const serverTime = new Trend('server_time', true);
const serverQueue = new Trend('server_queue', true);

// body is n bytes of the engine's pattern: 'a'…'z' cycling, restarting at
// every 32 KiB block.
function body(n) {
  let block = '';
  for (let i = 0; i < 32768; i++) {
    block += String.fromCharCode(97 + (i % 26));
  }
  return block.repeat(Math.ceil(n / 32768)).slice(0, n);
}

const BODIES = REQUESTS.map((r) => (r.bodySize > 0 ? body(r.bodySize) : null));
const PARAMS = REQUESTS.map((r) => {
  const p = { headers: Object.assign({}, r.headers) };
  if (r.name) {
    p.tags = { name: r.name };
  }
  if (TIMEOUT) {
    p.timeout = TIMEOUT;
  }
  if (COMPRESS) {
    p.headers['Accept-Encoding'] = 'gzip';
  }
  return p;
});
const TOTAL_WEIGHT = REQUESTS.reduce((s, r) => s + r.weight, 0);

function pick() {
  let x = Math.random() * TOTAL_WEIGHT;
  for (let i = 0; i < REQUESTS.length; i++) {
    x -= REQUESTS[i].weight;
    if (x < 0) {
      return i;
    }
  }
  return REQUESTS.length - 1;
}

// dur finds entry name's dur in a Server-Timing header (entries split by
// commas, parameters by semicolons), or undefined.
function dur(header, name) {
  for (const entry of header.split(',')) {
    const parts = entry.split(';').map((p) => p.trim());
    if (parts[0] !== name) {
      continue;
    }
    for (const p of parts.slice(1)) {
      const m = /^dur\s*=\s*"?([0-9.]+)"?$/.exec(p);
      if (m) {
        return parseFloat(m[1]);
      }
    }
  }
  return undefined;
}

function recordServerTime(res) {
  const header = res.headers['Server-Timing'] || '';
  const app = dur(header, SERVER_TIMING);
  if (app !== undefined) {
    serverTime.add(app);
  }
  const queue = dur(header, 'queue');
  if (queue !== undefined) {
    serverQueue.add(queue);
  }
}

export default function () {
  const i = pick();
  const r = REQUESTS[i];
  const target = /^https?:\/\//.test(r.url) ? r.url : TARGET + r.url;
  recordServerTime(http.request(r.method, target, BODIES[i], PARAMS[i]));
  if (CLIENT_CPU_MS > 0) {
    // The engine's clientCPU: spin until the millisecond clock has moved
    // on by CLIENT_CPU_MS (both generators read the same clock).
    const end = Date.now() + CLIENT_CPU_MS;
    while (Date.now() < end) {
      // busy
    }
  }
  if (THINK_S > 0) {
    sleep(THINK_S);
  }
}
`))

// Write writes the scripts of e's runs (or of the one named) into
// dir, or, without dir, the one script to w.
func Write(e *experiment.Experiment, runName, dir string, w io.Writer) error {
	scripts, err := Scripts(e, runName)
	if err != nil {
		return err
	}
	if dir == "" {
		if len(scripts) > 1 {
			return fmt.Errorf("%s has %d runs: name one with --run, or give a directory with -o", e.ID, len(scripts))
		}
		_, err := w.Write(scripts[0].Src)
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, s := range scripts {
		path := filepath.Join(dir, s.File)
		if err := atomicfile.WriteBytes(path, s.Src); err != nil {
			return err
		}
		fmt.Fprintf(w, "%s  (run %q)\n", path, s.Run)
	}
	return nil
}
