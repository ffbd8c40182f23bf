package diagnose

import (
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jscan is a minimal JSON scanner for k6's NDJSON lines: it walks one
// object, hands its keys to a callback and skips what is not wanted, without
// allocating. Strings are returned raw (between the quotes) with a flag when
// they hold escapes; unescape decodes them.
type jscan struct {
	b []byte
	i int
}

// scanError is a syntax error at a byte of the line.
type scanError struct {
	at  int
	msg string
}

func (e *scanError) Error() string { return e.msg }

// maxDepth bounds nesting in skipped values.
const maxDepth = 64

func (s *jscan) fail(format string, a ...any) error {
	return &scanError{at: s.i, msg: fmt.Sprintf(format, a...)}
}

func (s *jscan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// found describes the byte at the cursor, for errors.
func (s *jscan) found() string {
	if s.i >= len(s.b) {
		return "the end of the line"
	}
	return fmt.Sprintf("%q", s.b[s.i])
}

func (s *jscan) lit(c byte) error {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != c {
		return s.fail("want %q, found %s", c, s.found())
	}
	s.i++
	return nil
}

// str reads a string; raw excludes the quotes.
func (s *jscan) str() (raw []byte, esc bool, err error) {
	s.ws()
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, s.fail("want a string, found %s", s.found())
	}
	start := s.i + 1
	for j := start; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return s.b[start:j], esc, nil
		case c == '\\':
			esc = true
			j++
		case c < 0x20:
			s.i = j
			return nil, false, s.fail("control character %q in a string", c)
		}
	}
	s.i = len(s.b)
	return nil, false, s.fail("unterminated string")
}

// number reads a JSON number's text.
func (s *jscan) number() ([]byte, error) {
	s.ws()
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c >= '0' && c <= '9', c == '-', c == '+', c == '.', c == 'e', c == 'E':
			s.i++
			continue
		}
		break
	}
	if s.i == start {
		return nil, s.fail("want a number, found %s", s.found())
	}
	return s.b[start:s.i], nil
}

// float reads a number as float64.
func (s *jscan) float() (float64, error) {
	at := s.i
	raw, err := s.number()
	if err != nil {
		return 0, err
	}
	v, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		s.i = at
		return 0, s.fail("%q is not a number", raw)
	}
	return v, nil
}

// null consumes a literal null if one is next.
func (s *jscan) null() bool {
	s.ws()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// object walks an object; fn must consume each key's value.
func (s *jscan) object(fn func(key []byte, esc bool) error) error {
	if err := s.lit('{'); err != nil {
		return err
	}
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return nil
	}
	for {
		k, esc, err := s.str()
		if err != nil {
			return err
		}
		if err := s.lit(':'); err != nil {
			return err
		}
		s.ws()
		if err := fn(k, esc); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.fail("unterminated object")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.fail("want ',' or '}', found %s", s.found())
		}
	}
}

// skip consumes one value of any kind.
func (s *jscan) skip(depth int) error {
	s.ws()
	if depth > maxDepth {
		return s.fail("nested deeper than %d", maxDepth)
	}
	if s.i >= len(s.b) {
		return s.fail("want a value, found the end of the line")
	}
	switch c := s.b[s.i]; {
	case c == '"':
		_, _, err := s.str()
		return err
	case c == '{':
		return s.object(func([]byte, bool) error { return s.skip(depth + 1) })
	case c == '[':
		s.i++
		s.ws()
		if s.i < len(s.b) && s.b[s.i] == ']' {
			s.i++
			return nil
		}
		for {
			if err := s.skip(depth + 1); err != nil {
				return err
			}
			s.ws()
			if s.i >= len(s.b) {
				return s.fail("unterminated array")
			}
			if s.b[s.i] == ']' {
				s.i++
				return nil
			}
			if s.b[s.i] != ',' {
				return s.fail("want ',' or ']', found %s", s.found())
			}
			s.i++
		}
	case c == '-' || c >= '0' && c <= '9':
		_, err := s.float()
		return err
	}
	for _, w := range []string{"true", "false", "null"} {
		if len(s.b)-s.i >= len(w) && string(s.b[s.i:s.i+len(w)]) == w {
			s.i += len(w)
			return nil
		}
	}
	return s.fail("want a value, found %s", s.found())
}

// unescape appends the decoded form of a raw JSON string to dst.
func unescape(dst, raw []byte) ([]byte, error) {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' {
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(raw) {
			return dst, fmt.Errorf("string ends inside an escape")
		}
		switch raw[i] {
		case '"', '\\', '/':
			dst = append(dst, raw[i])
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, err := hex4(raw[i+1:])
			if err != nil {
				return dst, err
			}
			i += 4
			// A UTF-16 surrogate pair is two escapes: \ud83d\ude00.
			if utf16.IsSurrogate(r) && i+6 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if r2, err := hex4(raw[i+3:]); err == nil {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					}
				}
			}
			dst = utf8.AppendRune(dst, r) // a lone surrogate becomes U+FFFD
		default:
			return dst, fmt.Errorf("invalid escape \\%c", raw[i])
		}
	}
	return dst, nil
}

// hex4 reads the four hex digits of a \u escape at the start of b.
func hex4(b []byte) (rune, error) {
	if len(b) < 4 {
		return 0, fmt.Errorf("\\u escape needs 4 hex digits")
	}
	v, err := strconv.ParseUint(string(b[:4]), 16, 16)
	if err != nil {
		return 0, fmt.Errorf("\\u escape %q is not hex", b[:4])
	}
	return rune(v), nil
}
