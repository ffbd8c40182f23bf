package mystery

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/middlebench/middlebench/internal/atomicfile"
)

// State is a mystery's directory of record: where it listens and what its
// counters said last (so that `reveal` works from another terminal, and
// after the mystery stopped), and the answers given.
type State struct {
	Dir string
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

// Record is what a running mystery writes about itself. A keyed
// mystery's record says nothing of its devices: its counters (which name
// the stages) are sealed under the class key; its seed and level are
// there, and without the key they draw nothing.
type Record struct {
	ID        string    `json:"id"`
	Seed      uint64    `json:"seed"`
	Level     Level     `json:"level"`
	Keyed     bool      `json:"keyed,omitempty"`
	URL       string    `json:"url"`
	ServerURL string    `json:"serverUrl"`
	Running   bool      `json:"running"`
	Updated   string    `json:"updated"`
	Budget    string    `json:"budget,omitempty"` // the mystery's own load budget, as the first screen says it
	Counters  *Counters `json:"counters,omitempty"`
	Sealed    string    `json:"sealedCounters,omitempty"`
}

func (s *State) recordPath(id string) string { return filepath.Join(s.Dir, "mystery-"+id+".json") }

// ScriptPath is where a mystery's k6 script is written.
func (s *State) ScriptPath(id string) string { return filepath.Join(s.Dir, "mystery-"+id+".js") }

// SaveRecord writes a mystery's record; a keyed mystery's counters are
// sealed under key first.
func (s *State) SaveRecord(r Record, key ClassKey) error {
	if err := ValidID(r.ID); err != nil {
		return err
	}
	if r.Keyed && r.Counters != nil {
		b, err := json.Marshal(r.Counters)
		if err != nil {
			return err
		}
		r.Sealed, r.Counters = key.seal(r.ID, b), nil
	}
	return s.writeJSON(s.recordPath(r.ID), r)
}

// LoadRecord reads a mystery's record; ok is false when it never ran here.
func (s *State) LoadRecord(id string) (r Record, ok bool, err error) {
	if err := ValidID(id); err != nil {
		return r, false, err
	}
	err = readJSON(s.recordPath(id), &r)
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	return r, err == nil, err
}

// counters returns the record's counters, opening sealed ones with key.
func (r Record) counters(key ClassKey) (*Counters, error) {
	if r.Sealed == "" {
		return r.Counters, nil
	}
	b, err := key.open(r.ID, r.Sealed)
	if err != nil {
		return nil, err
	}
	var c Counters
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("mystery %s: sealed counters: %w", r.ID, err)
	}
	return &c, nil
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
