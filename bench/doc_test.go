package bench

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocPlacesEveryFile: doc.go's map of the package names every source
// file (by name or by a glob such as fidelity*.go), and names none that is
// gone, so a file added to the harness is given its part.
func TestDocPlacesEveryFile(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	named := regexp.MustCompile(`[a-z0-9_*]+\.go`).FindAllString(string(doc), -1)
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	placed := map[string]bool{}
	for _, pattern := range named {
		matches, _ := filepath.Glob(pattern)
		if len(matches) == 0 {
			t.Errorf("doc.go names %s, which matches no file", pattern)
		}
		for _, m := range matches {
			placed[m] = true
		}
	}
	for _, f := range files {
		if !strings.HasSuffix(f, "_test.go") && f != "doc.go" && !placed[f] {
			t.Errorf("doc.go does not say which part of the harness %s is", f)
		}
	}
}
