package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/middlebench/middlebench/internal/fuzztest"
)

// FuzzParse: whatever the YAML, an experiment or an error
// wrapping ErrSpec, never a panic; the seeds are every experiment the
// repository ships.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("../../experiments/*.yaml")
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src, false)
	}
	f.Add([]byte("id: x\nruns: []\n"), true)
	f.Add([]byte("vars: {a: 1}\nquick: {a: 2}\nruns: [{name: r, load: {vus: ${a}}}]\n"), true)
	f.Fuzz(func(t *testing.T, src []byte, quick bool) {
		defer fuzztest.Bound(5*time.Second, src)()
		e, err := Parse(src, quick)
		switch {
		case err != nil && !errors.Is(err, ErrSpec):
			t.Fatalf("error %v does not wrap ErrSpec", err)
		case err == nil && e == nil:
			t.Fatal("no experiment and no error")
		}
	})
}
