package console

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// ErrScript is a k6 script given where the engine wants options: it runs
// options (one request, or a mix, per iteration), not JavaScript.
var ErrScript = errors.New("load runs options, not scripts")

// scriptExts are the files k6 runs as scripts.
var scriptExts = map[string]bool{".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".tar": true}

// refuseScript says, in one line, what to do with a script given as the
// target or as --config: run it unchanged with real k6 through a path.
func refuseScript(url, config string) error {
	for _, f := range []struct{ flag, file string }{{"", url}, {"--config ", config}} {
		if f.file == "" || strings.Contains(f.file, "://") || !scriptExts[strings.ToLower(filepath.Ext(f.file))] {
			continue
		}
		return fmt.Errorf("%w (%s%s is a k6 script; the engine has no JavaScript): run it unchanged with real k6 through a path: middlebench k6 EXPERIMENT.yaml -- run %s",
			ErrScript, f.flag, f.file, f.file)
	}
	return nil
}
