package mystery

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/middlebench/middlebench/internal/atomicfile"
)

// State is a mystery's directory of record: where it listens and what its
// counters said last (so that `reveal` works from another terminal, and
// after the mystery stopped), and the answers given.
type State struct {
	Dir string
	mu  sync.Mutex // one process's writers of the answers file
}

// DefaultStateDir is $XDG_STATE_HOME/middlebench/mystery, else
// ~/.local/state/middlebench/mystery, else one under the temp dir.
func DefaultStateDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "middlebench", "mystery")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "state", "middlebench", "mystery")
	}
	return filepath.Join(os.TempDir(), "middlebench-mystery")
}

// Record is what a running mystery writes about itself.
type Record struct {
	Seed      uint64    `json:"seed"`
	Level     Level     `json:"level"`
	URL       string    `json:"url"`
	ServerURL string    `json:"serverUrl"`
	Running   bool      `json:"running"`
	Updated   string    `json:"updated"`
	Counters  *Counters `json:"counters,omitempty"`
}

func (s *State) name(kind string, seed uint64, l Level) string {
	return filepath.Join(s.Dir, fmt.Sprintf("%s-%d-%s.json", kind, seed, l))
}

func (s *State) ensure() error {
	if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return fmt.Errorf("mystery: state dir: %w", err)
	}
	return nil
}

func (s *State) writeJSON(path string, v any) error {
	if err := s.ensure(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteBytes(path, append(b, '\n'))
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// SaveRecord writes a mystery's record.
func (s *State) SaveRecord(r Record) error { return s.writeJSON(s.name("mystery", r.Seed, r.Level), r) }

// LoadRecord reads a mystery's record; ok is false when it never ran here.
func (s *State) LoadRecord(seed uint64, l Level) (r Record, ok bool, err error) {
	err = readJSON(s.name("mystery", seed, l), &r)
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	return r, err == nil, err
}

// Answers reads the answers given for a mystery.
func (s *State) Answers(seed uint64, l Level) ([]Answer, error) {
	var as []Answer
	err := readJSON(s.name("answers", seed, l), &as)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return as, err
}

// AddAnswer records an answer; a later answer under the same name replaces
// the earlier one.
func (s *State) AddAnswer(seed uint64, l Level, a Answer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	as, err := s.Answers(seed, l)
	if err != nil {
		return err
	}
	kept := as[:0]
	for _, x := range as {
		if x.Name != a.Name {
			kept = append(kept, x)
		}
	}
	return s.writeJSON(s.name("answers", seed, l), append(kept, a))
}
