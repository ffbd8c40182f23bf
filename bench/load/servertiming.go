package load

import (
	"strconv"
	"strings"

	"github.com/middlebench/middlebench/internal/h1"
)

// serverQueueTiming is the Server-Timing entry read into server_queue: the
// time a request waited for a worker inside the server, as middlebench's
// fake server reports it (queue;dur=). An APM that splits queueing from
// work sees it as the server's own; without it, that wait would read as
// time outside the server.
const serverQueueTiming = "queue"

// serverTiming finds metric name in Server-Timing header values (W3C Server
// Timing: entries separated by commas, each a token name followed by
// ";param" or ";param=value" parts, values a token or a quoted string) and
// returns its dur in milliseconds. The first entry with that name that has
// a usable dur wins; an entry without dur, a malformed one, or a negative or
// non-numeric dur is skipped, as the spec's parser ignores what it cannot
// read. Several header lines are read in order, as one list. No allocation.
func serverTiming(values []string, name string) (ms float64, ok bool) {
	for _, v := range values {
		if ms, ok = serverTimingIn(v, name); ok {
			return ms, true
		}
	}
	return 0, false
}

func serverTimingIn(s, name string) (float64, bool) {
	for len(s) > 0 {
		var entry string
		entry, s = cutUnquoted(s, ',')
		metric, params := splitToken(entry)
		if metric != name {
			continue
		}
		if ms, ok := durParam(params); ok {
			return ms, true
		}
	}
	return 0, false
}

// cutUnquoted cuts s at the first sep outside a quoted string (a
// backslash escapes the next character inside quotes).
func cutUnquoted(s string, sep byte) (before, after string) {
	inQuote := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case inQuote && c == '\\':
			i++
		case c == '"':
			inQuote = !inQuote
		case c == sep && !inQuote:
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// splitToken returns the entry's metric name (trimmed) and what follows it.
func splitToken(entry string) (string, string) {
	entry = h1.TrimOWS(entry)
	i := strings.IndexByte(entry, ';')
	if i < 0 {
		return entry, ""
	}
	return h1.TrimOWS(entry[:i]), entry[i+1:]
}

// durParam scans ";"-separated params for the first dur (case-insensitive).
func durParam(params string) (float64, bool) {
	for len(params) > 0 {
		var p string
		p, params = cutUnquoted(params, ';')
		k, v, hasValue := strings.Cut(p, "=")
		if !h1.EqualFold(h1.TrimOWS(k), "dur") {
			continue
		}
		if !hasValue {
			return 0, false // "dur" without a value: the entry has no duration
		}
		v = h1.TrimOWS(v)
		if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
			v = v[1 : len(v)-1]
			if strings.IndexByte(v, '\\') >= 0 {
				return 0, false // an escaped number is not a number
			}
		}
		ms, err := strconv.ParseFloat(v, 64)
		if err != nil || ms < 0 || ms != ms || ms > 1e12 {
			return 0, false
		}
		return ms, true
	}
	return 0, false
}
