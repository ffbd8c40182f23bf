package mystery

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/middlebench/middlebench/internal/atomicfile"
)

// ServeOptions are what `middlebench mystery` asks for.
type ServeOptions struct {
	Seed   uint64
	Level  Level
	Listen string // the path's entry (default a free loopback port)
	// ServerListen is the fake server's address (default a free loopback
	// port): the APM view and rule 11's straight-at-the-server baseline.
	ServerListen string
	State        *State
	Duration     time.Duration // 0: until ctx ends
	Out          io.Writer
	// Started, if set, is called once the mystery serves (the dashboard).
	Started func(*Running)
	// Every is how often the record (counters for reveal) is saved (default 1s).
	Every time.Duration
}

// Serve draws the mystery, serves it, prints where to aim, and keeps its
// record (the counters `reveal` reads) up to date until ctx ends.
func Serve(ctx context.Context, o ServeOptions) error {
	m, err := Draw(o.Seed, o.Level)
	if err != nil {
		return err
	}
	if o.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.Duration)
		defer cancel()
	}
	if o.ServerListen != "" {
		m.Server.Listen = o.ServerListen
	}
	r, err := Start(context.WithoutCancel(ctx), m, o.Listen)
	if err != nil {
		return err
	}
	defer r.Close()
	script := filepath.Join(o.State.Dir, fmt.Sprintf("mystery-%d-%s.js", m.Seed, m.Level))
	if err := atomicfileWrite(o.State, script, K6Script(r.URL(), m.Seed, m.Level)); err != nil {
		return err
	}
	save := func(running bool) error {
		c, err := r.Counters()
		if err != nil {
			return err
		}
		return o.State.SaveRecord(Record{Seed: m.Seed, Level: m.Level, URL: r.URL(), ServerURL: r.Server.URL(),
			Running: running, Updated: time.Now().UTC().Format(time.RFC3339), Counters: c})
	}
	if err := save(true); err != nil {
		return err
	}
	printAim(o.Out, m, r, script)
	if o.Started != nil {
		o.Started(r)
	}
	every := o.Every
	if every <= 0 {
		every = time.Second
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return save(false)
		case <-t.C:
			if err := save(true); err != nil {
				return err
			}
		}
	}
}

func atomicfileWrite(s *State, path, text string) error {
	if err := s.ensure(); err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, []byte(text))
}

func printAim(w io.Writer, m *Mystery, r *Running, script string) {
	fmt.Fprintf(w, `mystery seed %d, level %s: something on this path, or the server behind it, is not what it should be.

  aim here:     %s   (self-signed TLS: k6 --insecure-skip-tls-verify, curl -k)
  the APM:      %s/_mb/stats   (the server's own view; rule 11: the server is also at %s)

  with middlebench's engine:
    middlebench load --vus %d --duration %s --insecure-skip-tls-verify --summary-export mystery.json %s
    curl -s %s/_mb/stats > server.json
    middlebench analyze mystery.json --server-stats server.json
  with real k6 (the script is written for you):
    k6 run --summary-export=summary.json %s
    curl -s %s/_mb/stats > server.json
    middlebench analyze summary.json --server-stats server.json
  then answer, and reveal:
    middlebench mystery answer --seed %d --level %s --name YOURNAME CODE...
    middlebench mystery reveal --seed %d --level %s

Ctrl-C stops the mystery (reveal still works afterwards).
`, m.Seed, m.Level, r.URL(), r.Server.URL(), r.Server.URL(), ExerciseVUs, ExerciseDuration, r.URL(), r.Server.URL(),
		script, r.Server.URL(), m.Seed, m.Level, m.Seed, m.Level)
}

// Reveal prints the key of seed/level from its record (the counters it
// saved last) and scores every answer given; asJSON prints the key and
// the verdicts as one JSON object instead.
func Reveal(w io.Writer, s *State, seed uint64, l Level, asJSON bool) error {
	m, err := Draw(seed, l)
	if err != nil {
		return err
	}
	rec, ok, err := s.LoadRecord(seed, l)
	if err != nil {
		return err
	}
	var c *Counters
	if ok {
		c = rec.Counters
	}
	answers, err := s.Answers(seed, l)
	if err != nil {
		return err
	}
	k := m.KeyFrom(c)
	if !asJSON {
		WriteReveal(w, k, answers)
		return nil
	}
	out := struct {
		Key      Key       `json:"key"`
		Verdicts []Verdict `json:"verdicts"`
	}{k, []Verdict{}}
	for _, a := range answers {
		out.Verdicts = append(out.Verdicts, k.Score(a))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Submit records an answer after checking its codes.
func Submit(s *State, seed uint64, l Level, name string, codes []string) (Answer, error) {
	if _, err := Draw(seed, l); err != nil {
		return Answer{}, err
	}
	cs, err := CheckCodes(codes)
	if err != nil {
		return Answer{}, err
	}
	if name == "" {
		name = "anonymous"
	}
	a := Answer{Name: name, Codes: cs, At: time.Now().UTC().Format(time.RFC3339)}
	return a, s.AddAnswer(seed, l, a)
}
