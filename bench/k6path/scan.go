package k6path

import (
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// A target is a URL's scheme and host as a script or a -e value writes it.
type target struct {
	Scheme string // http or https
	Host   string // lower case, without the port
	Port   string // as written, or the scheme's
	Where  string // file:line, or -e KEY
}

func (t target) String() string { return t.Scheme + "://" + net.JoinHostPort(t.Host, t.Port) }

// Bounds on what a scan reads: a script and its local modules.
const (
	maxScriptBytes = 8 << 20
	maxModules     = 64
)

var (
	urlRE = regexp.MustCompile(`(?i)\b(https?)://([^/\s'"` + "`" + `?#\\]*)`)
	// module specifiers: import … from '…', import '…', require('…')
	moduleRE = regexp.MustCompile(`(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"` + "`" + `]([^'"` + "`" + `]+)['"` + "`" + `]`)
)

// scanScript returns the URLs a script and its local modules write
// outside comments and module specifiers (remote modules are k6's to
// fetch, not load), and the -e values that are URLs. A URL whose host is
// built at run time (`https://${host}/`) is not a target here: k6's
// blacklistIPs holds it to loopback while it runs.
func scanScript(script string, env []string) ([]target, error) {
	var out []target
	seen := map[string]bool{}
	queue := []string{filepath.Clean(script)}
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		if seen[file] {
			continue
		}
		if len(seen) == maxModules {
			return nil, fmt.Errorf("%s: more than %d local modules", script, maxModules)
		}
		seen[file] = true
		src, err := readBounded(file)
		if err != nil {
			return nil, err
		}
		code := stripComments(src)
		for _, m := range moduleRE.FindAllStringSubmatchIndex(code, -1) {
			spec := code[m[2]:m[3]]
			if strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") {
				queue = append(queue, filepath.Join(filepath.Dir(file), spec))
			}
			code = code[:m[2]] + strings.Repeat(" ", m[3]-m[2]) + code[m[3]:] // not a target
		}
		for _, m := range urlRE.FindAllStringSubmatchIndex(code, -1) {
			where := fmt.Sprintf("%s:%d", file, 1+strings.Count(code[:m[0]], "\n"))
			if t, ok := targetOf(code[m[2]:m[3]], code[m[4]:m[5]], where); ok {
				out = append(out, t)
			}
		}
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if m := urlRE.FindStringSubmatch(v); m != nil {
			if t, ok := targetOf(m[1], m[2], "-e "+k); ok {
				out = append(out, t)
			}
		}
	}
	return out, nil
}

func readBounded(file string) (string, error) {
	f, err := os.Open(file)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxScriptBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxScriptBytes {
		return "", fmt.Errorf("%s: larger than %d bytes", file, maxScriptBytes)
	}
	return string(b), nil
}

// targetOf is a URL's target, unless its host is built at run time.
func targetOf(scheme, authority, where string) (target, bool) {
	if strings.ContainsAny(authority, "${}+") || authority == "" {
		return target{}, false
	}
	if _, after, ok := strings.Cut(authority, "@"); ok {
		authority = after // user:pass@
	}
	t := target{Scheme: strings.ToLower(scheme), Where: where}
	host, port, err := net.SplitHostPort(authority)
	if err != nil {
		host, port = strings.Trim(authority, "[]"), ""
	}
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[t.Scheme]
	}
	t.Host, t.Port = strings.ToLower(strings.TrimSuffix(host, ".")), port
	return t, t.Host != ""
}

// stripComments blanks JavaScript comments, keeping strings, template
// literals and line breaks (so lines still count).
func stripComments(src string) string {
	b := []byte(src)
	var quote byte // inside a string or template literal
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote || (c == '\n' && quote != '`') {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '/' && i+1 < len(b) && b[i+1] == '/':
			for ; i < len(b) && b[i] != '\n'; i++ {
				b[i] = ' '
			}
		case c == '/' && i+1 < len(b) && b[i+1] == '*':
			b[i], b[i+1] = ' ', ' '
			for i += 2; i < len(b) && !(b[i] == '*' && i+1 < len(b) && b[i+1] == '/'); i++ {
				if b[i] != '\n' {
					b[i] = ' '
				}
			}
			if i+1 < len(b) {
				b[i], b[i+1] = ' ', ' '
				i++
			}
		}
	}
	return string(b)
}
