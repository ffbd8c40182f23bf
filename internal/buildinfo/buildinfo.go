// Package buildinfo is middlebench's version as the Go toolchain recorded
// it in the binary: `go install …/cmd/middlebench@v0.3.0` gives "0.3.0", a
// build from a work tree "0.0.0-devel" and its VCS revision. Nothing is kept in a
// constant that a release could forget to bump.
package buildinfo

import (
	"runtime/debug"
	"strings"
)

// Version is the module version without its "v", or "0.0.0-devel" for a
// build that recorded none (a test binary, `go build` outside a checkout).
func Version() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			return strings.TrimPrefix(v, "v")
		}
	}
	return "0.0.0-devel"
}

// Commit is the first 10 characters of the VCS revision, or "devel".
func Commit() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 10 {
				return s.Value[:10]
			}
		}
	}
	return "devel"
}

// Tool names middlebench in User-Agents and results documents:
// "middlebench/<version>".
func Tool() string { return "middlebench/" + Version() }
