package mystery

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Under a key the same seed draws the same mystery every time, and over
// 200 seeds not the practice one's sequence; another key draws another
// sequence. The id is stable, names neither seed nor key, and differs by
// key.
func TestKeyedDrawIsStableAndKeyDependent(t *testing.T) {
	k1, k2 := ClassKey(strings.Repeat("ab", 32)), ClassKey(strings.Repeat("cd", 32))
	differ1, differ2 := 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		a, err := DrawKeyed(seed, LevelTwo, k1)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := DrawKeyed(seed, LevelTwo, k1)
		if pathYAML(t, a) != pathYAML(t, b) || a.ID != b.ID || !a.Keyed {
			t.Fatalf("seed %d: two keyed draws differ", seed)
		}
		p, _ := Draw(seed, LevelTwo)
		o, _ := DrawKeyed(seed, LevelTwo, k2)
		if pathYAML(t, a) != pathYAML(t, p) {
			differ1++
		}
		if pathYAML(t, a) != pathYAML(t, o) {
			differ2++
		}
		if o.ID == a.ID || strings.Contains(a.ID, string(k1[:8])) || ValidID(a.ID) != nil {
			t.Fatalf("seed %d: ids %q and %q", seed, a.ID, o.ID)
		}
	}
	// Two causes of eleven, paths that differ in a size or a place:
	// most seeds differ; a key that changed nothing would differ in none.
	if differ1 < 150 || differ2 < 150 {
		t.Fatalf("of 200 seeds, %d differ from the practice draw and %d between keys; want most", differ1, differ2)
	}
}

// A keyed record keeps its counters sealed: the file holds none of the
// stages' names, the right key opens them, another key is ErrWrongKey and
// no key ErrNoKey.
func TestSealedRecord(t *testing.T) {
	key, other := NewClassKey(), NewClassKey()
	m, err := DrawKeyed(5, LevelOne, key)
	if err != nil {
		t.Fatal(err)
	}
	s := &State{Dir: t.TempDir()}
	c := &Counters{Boxes: []map[string]any{{"name": "edge", "stages": []any{map[string]any{"kind": m.Parts[0].Kind + "-marker"}}}}}
	if err := s.SaveRecord(Record{ID: m.ID, Seed: 5, Level: LevelOne, Keyed: true, Counters: c}, key); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(filepath.Join(s.Dir, "mystery-"+m.ID+".json"))
	if strings.Contains(string(raw), "-marker") || strings.Contains(string(raw), string(key)) {
		t.Fatalf("the record shows the counters or the key: %s", raw)
	}
	got, gc, err := s.Find(m.ID, key)
	if err != nil || got.ID != m.ID {
		t.Fatalf("Find with the key: %v", err)
	}
	if b, _ := json.Marshal(gc); !strings.Contains(string(b), "-marker") {
		t.Fatalf("the key opened %s", b)
	}
	if _, _, err := s.Find(m.ID, other); !errors.Is(err, ErrWrongKey) {
		t.Fatalf("another key: %v, want ErrWrongKey", err)
	}
	if _, _, err := s.Find(m.ID, ""); !errors.Is(err, ErrNoKey) {
		t.Fatalf("no key: %v, want ErrNoKey", err)
	}
	for _, bad := range []string{"../x", "M12", "", strings.Repeat("a", 41), "a/b"} {
		if ValidID(bad) == nil {
			t.Errorf("ValidID(%q) accepted", bad)
		}
	}
}

// A key file is created 0600 when missing and read back the same; a file
// that is not a key is refused, naming the file.
func TestClassKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "t", "class.key")
	k, created, err := LoadOrCreateClassKey(path)
	if err != nil || !created {
		t.Fatalf("create: %v %v", created, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
	}
	again, created, err := LoadOrCreateClassKey(path)
	if err != nil || created || again != k {
		t.Fatalf("read back: %q %v %v", again, created, err)
	}
	os.WriteFile(path, []byte("not a key\n"), 0o600)
	if _, err := ReadClassKey(path); !errors.Is(err, ErrKeyFile) || !strings.Contains(err.Error(), path) {
		t.Fatalf("a bad key file: %v", err)
	}
}
