package k6path

import (
	"fmt"
	"strings"
)

// k6Args is the user's k6 command line (after `--`), read only as far as
// routing needs: the script, the -e values, the files the user asked for.
type k6Args struct {
	words  []string // as given, "run" first
	script string   // the last word
	env    []string // -e/--env values, KEY=VALUE
	config string   // -c/--config, or ""
	export string   // --summary-export, or ""
}

// valueFlags are k6 run's flags that take a value in the next word when
// not written FLAG=VALUE; only those that matter here are read.
var valueFlags = map[string]string{
	"-e": "env", "--env": "env",
	"-c": "config", "--config": "config",
	"--summary-export": "export",
}

// parseK6Args reads `run [flags] SCRIPT`. The script must come last, as
// k6's own usage writes it.
func parseK6Args(words []string) (*k6Args, error) {
	if len(words) == 0 || words[0] != "run" {
		return nil, fmt.Errorf("after --, give k6's own command: run [k6 flags] SCRIPT.js (got %q)", strings.Join(words, " "))
	}
	if len(words) < 2 || strings.HasPrefix(words[len(words)-1], "-") {
		return nil, fmt.Errorf("after -- run, the script comes last (k6 run [flags] SCRIPT.js)")
	}
	a := &k6Args{words: words, script: words[len(words)-1]}
	if a.script == "-" {
		return nil, fmt.Errorf("a script on stdin cannot be checked for the hosts it targets: give its file")
	}
	for i := 1; i < len(words)-1; i++ {
		w := words[i]
		name, value, inline := strings.Cut(w, "=")
		if !strings.HasPrefix(w, "--") && len(w) > 2 && strings.HasPrefix(w, "-e") {
			name, value, inline = "-e", w[2:], true // -eKEY=VALUE
		}
		field, ok := valueFlags[name]
		if !ok {
			continue
		}
		if !inline {
			if i+1 >= len(words)-1 {
				return nil, fmt.Errorf("k6 flag %s needs a value", name)
			}
			i++
			value = words[i]
		}
		switch field {
		case "env":
			a.env = append(a.env, value)
		case "config":
			a.config = value
		case "export":
			a.export = value
		}
	}
	return a, nil
}

// with is the command line with the routing config and the files this
// package reads: config replaces the user's --config (it holds theirs,
// merged), export is added unless the user gave one, and the NDJSON
// stream is one more --out beside the user's own.
func (a *k6Args) with(config, export, stream string) []string {
	out := []string{"run"}
	mid := a.words[1 : len(a.words)-1]
	for i := 0; i < len(mid); i++ {
		w := mid[i]
		name, _, inline := strings.Cut(w, "=")
		if name == "-c" || name == "--config" {
			if !inline {
				i++
			}
			continue
		}
		out = append(out, w)
	}
	out = append(out, "--config", config)
	if a.export == "" {
		out = append(out, "--summary-export", export)
	}
	out = append(out, "--out", "json="+stream, a.script)
	return out
}
