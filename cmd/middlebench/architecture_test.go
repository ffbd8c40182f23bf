package main

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// pendingRooms are rooms the README's Architecture section names before
// their move lands (issue 37's wave: other branches make them, the lead
// merges): each must not exist yet, and its code is still in until ("" for
// a new room). Delete a row when its room lands; the test says which.
var pendingRooms = []struct{ room, until string }{}

// TestArchitectureNamesRealRooms: every directory and file the README's
// Architecture section names exists (a glob matches something; "dir/…"
// has a subdirectory), and every top-level directory with Go code is in
// its tree, so a newcomer's map neither points at nothing nor leaves a
// room out.
func TestArchitectureNamesRealRooms(t *testing.T) {
	const root = "../.."
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section, ok := architectureSection(string(readme))
	if !ok {
		t.Fatal("README.md has no '## Architecture' section")
	}
	tree, top := treePaths(section)
	if len(tree) < 10 {
		t.Fatalf("the Architecture section's tree names %d directories: %q", len(tree), tree)
	}
	pending := map[string]bool{} // room → named by the section
	for _, p := range pendingRooms {
		pending[p.room] = false
		if exists(filepath.Join(root, p.room)) {
			t.Errorf("%s has landed: delete its row from pendingRooms", p.room)
		}
		if p.until != "" && !exists(filepath.Join(root, p.until)) {
			t.Errorf("pendingRooms says %s's code is still in %s, which does not exist", p.room, p.until)
		}
	}
	for _, name := range append(tree, backtickedPaths(section)...) {
		clean := strings.TrimSuffix(strings.TrimSuffix(name, "…"), "/")
		if _, ok := pending[clean]; ok {
			pending[clean] = true
			continue
		}
		if !named(root, name) {
			t.Errorf("the Architecture section names %s, which is not in the tree", name)
		}
	}
	for room, isNamed := range pending {
		if isNamed {
			continue
		}
		t.Errorf("pendingRooms holds %s, which the Architecture section does not name", room)
	}
	covered := map[string]bool{}
	for _, d := range top {
		first, _, _ := strings.Cut(d, "/")
		covered[first] = true
	}
	for _, p := range pendingRooms {
		if p.until != "" {
			covered[p.until] = true // the room it moves to is named (checked above)
		}
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !covered[e.Name()] && holdsGo(filepath.Join(root, e.Name())) {
			t.Errorf("%s/ holds Go code but the Architecture section's tree does not name it", e.Name())
		}
	}
}

// architectureSection is the README's text from "## Architecture" to the
// next second-level heading.
func architectureSection(readme string) (string, bool) {
	_, after, ok := strings.Cut(readme, "\n## Architecture\n")
	if !ok {
		return "", false
	}
	if i := strings.Index(after, "\n## "); i >= 0 {
		after = after[:i]
	}
	return after, true
}

// treeLine is a line of the section's code block: its indentation (two
// spaces a level) and a directory name ending in "/" (or "/…").
var treeLine = regexp.MustCompile(`^( *)([a-z0-9._-]+(/[a-z0-9._-]+)*/…?)(\s|$)`)

// treePaths reads the tree in the section's code block: every directory as
// its full path, and those at the top level.
func treePaths(section string) (all, top []string) {
	_, block, _ := strings.Cut(section, "```\n")
	block, _, _ = strings.Cut(block, "```")
	var parents []string
	for _, line := range strings.Split(block, "\n") {
		m := treeLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		depth := len(m[1]) / 2
		if depth > len(parents) {
			depth = len(parents) // a line deeper than its parent hangs under the last one
		}
		parents = append(parents[:depth], m[2])
		all = append(all, strings.Join(parents, ""))
		if depth == 0 {
			top = append(top, m[2])
		}
	}
	return all, top
}

// pathInBackticks is a `dir/`, `dir/file.go`, `dir/*.sh` or `dir/…` in the
// section's prose and table.
var pathInBackticks = regexp.MustCompile("`([a-z0-9._-]+/[a-zA-Z0-9._*/-]*…?)`")

func backtickedPaths(section string) []string {
	var out []string
	for _, m := range pathInBackticks.FindAllStringSubmatch(section, -1) {
		out = append(out, m[1])
	}
	return out
}

// named reports whether name (relative to root) is in the tree: a path, a
// glob matching one, or "dir/…": a directory with a subdirectory.
func named(root, name string) bool {
	if dir, ok := strings.CutSuffix(name, "…"); ok {
		entries, _ := os.ReadDir(filepath.Join(root, dir))
		for _, e := range entries {
			if e.IsDir() {
				return true
			}
		}
		return false
	}
	matches, err := filepath.Glob(filepath.Join(root, strings.TrimSuffix(name, "/")))
	return err == nil && len(matches) > 0
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// holdsGo reports whether dir has a .go file outside testdata.
func holdsGo(dir string) bool {
	found := false
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || found:
			return filepath.SkipAll
		case d.IsDir() && d.Name() == "testdata":
			return filepath.SkipDir
		case !d.IsDir() && strings.HasSuffix(p, ".go"):
			found = true
		}
		return nil
	})
	return found
}
