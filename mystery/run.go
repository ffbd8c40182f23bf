package mystery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
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
	// KeyFile holds the class key; Serve writes a fresh one there when
	// there is none. "" draws the practice mystery of the seed alone.
	KeyFile  string
	Duration time.Duration // 0: until ctx ends
	Out      io.Writer
	// Started, if set, is called once the mystery serves (the dashboard).
	Started func(*Running)
	// Every is how often the record (counters for reveal) is saved (default 1s).
	Every time.Duration
}

// Serve draws the mystery, serves it, prints where to aim, and keeps its
// record (the counters `reveal` reads) up to date until ctx ends.
func Serve(ctx context.Context, o ServeOptions) error {
	var key ClassKey
	if o.KeyFile != "" {
		k, created, err := LoadOrCreateClassKey(o.KeyFile)
		if err != nil {
			return fmt.Errorf("--key-file: %w", err)
		}
		if created {
			fmt.Fprintf(o.Out, "a new class key was written to %s (mode 0600): reveal needs it; use it for the whole class\n\n", o.KeyFile)
		}
		key = k
	}
	m, err := DrawKeyed(o.Seed, o.Level, key)
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
	script := o.State.ScriptPath(m.ID)
	if err := atomicfileWrite(o.State, script, K6Script(r.URL(), m.ID)); err != nil {
		return err
	}
	save := func(running bool) error {
		c, err := r.Counters()
		if err != nil {
			return err
		}
		return o.State.SaveRecord(Record{ID: m.ID, Seed: m.Seed, Level: m.Level, Keyed: m.Keyed, URL: r.URL(), ServerURL: r.Server.URL(),
			Running: running, Updated: time.Now().UTC().Format(time.RFC3339), Budget: BudgetText(), Counters: c}, key)
	}
	if err := save(true); err != nil {
		return err
	}
	printAim(o.Out, aim{m: m, r: r, script: script, stateDir: o.State.Dir, keyFile: o.KeyFile})
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

// aim is what the first screen needs.
type aim struct {
	m                *Mystery
	r                *Running
	script, stateDir string
	keyFile          string
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-:=@+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// AnswerCommand is the command a student types to answer mystery id kept
// in stateDir: every option it needs, nothing secret.
func AnswerCommand(stateDir, id string) string {
	return fmt.Sprintf("middlebench mystery answer --state-dir %s --id %s --name YOURNAME CODE...", shellQuote(stateDir), id)
}

// RevealCommand is the teacher's reveal of mystery id (with the key file
// when the mystery is keyed).
func RevealCommand(stateDir, id, keyFile string) string {
	cmd := fmt.Sprintf("middlebench mystery reveal --state-dir %s --id %s", shellQuote(stateDir), id)
	if keyFile != "" {
		cmd += " --key-file " + shellQuote(keyFile)
	}
	return cmd
}

func printAim(w io.Writer, a aim) {
	m, r := a.m, a.r
	fmt.Fprintf(w, `mystery %s (level %s): something on this path, or the server behind it, is not what it should be.

  aim here:     %s   (self-signed TLS: k6 --insecure-skip-tls-verify, curl -k)
  the APM:      %s/_mb/stats   (the server's own view; rule 11: the server is also at %s)
  load budget:  %s

  with middlebench's engine:
    middlebench load --vus %d --duration %s --insecure-skip-tls-verify --summary-export mystery.json %s
    curl -s %s/_mb/stats > server.json
    middlebench analyze mystery.json --server-stats server.json
  with real k6 (the script is written for you; the NDJSON stream carries every status code):
    k6 run --out json=mystery.ndjson --summary-export=summary.json %s
    curl -s %s/_mb/stats > server.json
    middlebench analyze mystery.ndjson --server-stats server.json
  then answer (the rules, symptom → suspect: middlebench mystery rules):
    %s
`, m.ID, m.Level, r.URL(), r.Server.URL(), r.Server.URL(), BudgetText(), ExerciseVUs, ExerciseDuration, r.URL(), r.Server.URL(),
		shellQuote(a.script), r.Server.URL(), AnswerCommand(a.stateDir, m.ID))
	if m.Keyed {
		fmt.Fprintf(w, "  the teacher reveals (the class key is in %s: keep it from the students):\n    %s\n", a.keyFile, RevealCommand(a.stateDir, m.ID, a.keyFile))
	} else {
		fmt.Fprintf(w, "  and reveal (a practice mystery: drawn from the seed alone, anyone may reveal it):\n    %s\n", RevealCommand(a.stateDir, m.ID, ""))
	}
	fmt.Fprintf(w, "\nCtrl-C stops the mystery (reveal still works afterwards).\n")
}

// ErrNoMystery is returned for an id no mystery in the state dir has.
var ErrNoMystery = errors.New("no mystery with this id has run here (check --state-dir and --id: the mystery's first screen prints both)")

// practiceOf reads a practice id ("7-one") back into its seed and level.
func practiceOf(id string) (uint64, Level, bool) {
	seedText, lvl, ok := strings.Cut(id, "-")
	if !ok {
		return 0, "", false
	}
	seed, err := strconv.ParseUint(seedText, 10, 64)
	if err != nil || !slices.Contains(levels[:], Level(lvl)) {
		return 0, "", false
	}
	return seed, Level(lvl), true
}

// Find draws the mystery id names: from its record (a keyed one needs
// the key that drew it), or, for a practice id that never ran here, from
// the id itself. c is the counters saved last (nil if none).
func (s *State) Find(id string, key ClassKey) (m *Mystery, c *Counters, err error) {
	if err := ValidID(id); err != nil {
		return nil, nil, err
	}
	rec, ok, err := s.LoadRecord(id)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		seed, l, practice := practiceOf(id)
		if !practice {
			return nil, nil, fmt.Errorf("%s in %s: %w", id, s.Dir, ErrNoMystery)
		}
		m, err := Draw(seed, l)
		return m, nil, err
	}
	if !rec.Keyed {
		key = ""
	} else if key == "" {
		return nil, nil, ErrNoKey
	}
	m, err = DrawKeyed(rec.Seed, rec.Level, key)
	if err != nil {
		return nil, nil, err
	}
	if m.ID != id {
		return nil, nil, ErrWrongKey
	}
	c, err = rec.counters(key)
	return m, c, err
}

// Reveal prints the key of mystery id from its record (the counters it
// saved last) and scores every student's last answer; a keyed mystery
// needs its class key, and without it nothing is printed. asJSON prints
// the key and the verdicts as one JSON object instead.
func Reveal(w io.Writer, s *State, id string, key ClassKey, asJSON bool) error {
	return RevealAs(w, s, id, key, RevealText(asJSON))
}

// RevealFormat is how a reveal is written.
type RevealFormat int

// Reveal formats.
const (
	AsText RevealFormat = iota
	AsJSON
	AsHTML
)

// RevealText is AsJSON when asJSON, else AsText.
func RevealText(asJSON bool) RevealFormat {
	if asJSON {
		return AsJSON
	}
	return AsText
}

// RevealAs is Reveal in format f (AsHTML: one page for the projector).
func RevealAs(w io.Writer, s *State, id string, key ClassKey, f RevealFormat) error {
	m, c, err := s.Find(id, key)
	if err != nil {
		return err
	}
	all, err := s.Answers(id)
	k := m.KeyFrom(c)
	if errors.Is(err, ErrBadAnswer) {
		k.Notes = append(k.Notes, "some files in the answers directory are not answers and were left out: "+err.Error())
	} else if err != nil {
		return err
	}
	switch f {
	case AsText:
		WriteReveal(w, k, all)
		return nil
	case AsHTML:
		return WriteRevealHTML(w, k, all)
	}
	out := struct {
		Key      Key       `json:"key"`
		Verdicts []Verdict `json:"verdicts"`
		Answers  []Answer  `json:"answers"` // every answer given, revisions included
	}{k, []Verdict{}, all}
	for _, a := range Latest(all) {
		out.Verdicts = append(out.Verdicts, k.Score(a))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// Submit records an answer to mystery id after checking its codes and
// name; via is ViaCLI or ViaWeb, token a web answer's revising secret.
// It returns the answer and, for a web answer's first, its token.
func Submit(s *State, id, name string, codes []string, via, token string) (Answer, string, error) {
	if err := ValidID(id); err != nil {
		return Answer{}, "", err
	}
	if _, ok, err := s.LoadRecord(id); err != nil {
		return Answer{}, "", err
	} else if _, _, practice := practiceOf(id); !ok && !practice {
		return Answer{}, "", fmt.Errorf("%s in %s: %w", id, s.Dir, ErrNoMystery)
	}
	cs, err := CheckCodes(codes)
	if err != nil {
		return Answer{}, "", err
	}
	n, err := CheckName(name)
	if err != nil {
		return Answer{}, "", err
	}
	a := Answer{Name: n, Codes: cs, Via: via}
	tok, err := s.AddAnswer(id, a, token)
	return a, tok, err
}
