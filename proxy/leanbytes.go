package proxy

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
)

// The bytes of a head, as the lean loop reads them on both sides: where
// it ends, its lines, and the byte classes of names, values and hosts.

// hline is one header line as headerLine reads it: the name is
// [0:colon], the value [vs:ve] without the spaces and tabs around it,
// and the next line starts at next.
type hline struct{ colon, vs, ve, next int }

// headerLine reads the header line at the start of b, "name: value"
// ended by CRLF, in one pass: the name must be a token and the value must
// hold no control byte but tab, nor DEL, before its CRLF (a bare CR or LF
// is one, and ends nothing). ok is false for anything else: obs-fold, a
// space before the colon, no colon, no CRLF in b.
func headerLine(b []byte) (l hline, ok bool) {
	i := 0
	for i < len(b) && tokenBytes[b[i]] {
		i++
	}
	if i == 0 || i == len(b) || b[i] != ':' {
		return l, false
	}
	l.colon = i
	for i++; i < len(b) && (b[i] == ' ' || b[i] == '\t'); i++ {
	}
	l.vs = i
	for i < len(b) {
		if i+8 <= len(b) {
			m := controlBytes(binary.LittleEndian.Uint64(b[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) / 8 // the first control byte or DEL
		}
		if c := b[i]; c >= 0x20 && c != 0x7f || c == '\t' {
			i++
			continue
		}
		if b[i] != '\r' || i+1 == len(b) || b[i+1] != '\n' {
			return l, false
		}
		l.ve, l.next = i, i+2
		for l.ve > l.vs && (b[l.ve-1] == ' ' || b[l.ve-1] == '\t') {
			l.ve--
		}
		return l, true
	}
	return l, false
}

// controlBytes marks (its high bit) each of x's eight bytes, little end
// first, that is below 0x20 or is 0x7f; the lowest mark is exact, those
// above it may not be (a borrow spreads from a marked byte upwards), and
// none is missed.
func controlBytes(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	del := x ^ 0x7f*ones
	return (x-0x20*ones)&^x&highs | (del-ones)&^del&highs
}

// tokenBytes marks RFC 9110's token characters: letters, digits and
// !#$%&'*+-.^_`|~ (a table filled once, never written after).
var tokenBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = inSet(byte(c), tokenLo, tokenHi)
	}
	return t
}()

// headEnd is the length of b's head up to and with its first CRLFCRLF,
// or 0 (bytes.Index's answer, found a line end at a time: a head has
// CRs at every line end, where bytes.Index tries a match each time).
func headEnd(b []byte) int {
	for i := 3; i < len(b); {
		j := bytes.IndexByte(b[i:], '\n')
		if j < 0 {
			return 0
		}
		i += j
		if b[i-1] == '\r' && b[i-2] == '\n' && b[i-3] == '\r' {
			return i + 1
		}
		i++
	}
	return 0
}

// cutLine cuts s at its first LF, which must end a CRLF: line is what
// comes before the CR; ok is false for a bare LF (or none).
func cutLine[T string | []byte](s T) (line, rest T, ok bool) {
	i := indexLF(s)
	if i < 1 || s[i-1] != '\r' {
		return s, s[:0], false
	}
	return s[:i-1], s[i+1:], true
}

func indexLF[T string | []byte](s T) int {
	switch v := any(s).(type) {
	case string:
		return strings.IndexByte(v, '\n')
	case []byte:
		return bytes.IndexByte(v, '\n')
	}
	return -1
}

// bareLF reports whether b has a line ended by LF alone (net/http reads
// such heads; the lean loop leaves them to it).
func bareLF(b []byte) bool {
	for i, c := range b {
		if c == '\n' && (i == 0 || b[i-1] != '\r') {
			return true
		}
	}
	return false
}

// validToken: RFC 9110 token characters (method, header name).
func validToken[T string | []byte](s T) bool {
	if len(s) == 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !tokenBytes[s[i]] {
			return false
		}
	}
	return true
}

// Byte classes as bit sets, bytes 0–63 in the first word, 64–127 in the
// second (TestByteSets spells them out): RFC 9110's token characters
// (letters, digits, !#$%&'*+-.^_`|~) and those of a host[:port] (letters,
// digits, -._~:[]%!$&'()*+,;=).
const (
	tokenLo, tokenHi = 0x03ff6cfa00000000, 0x57ffffffc7fffffe
	hostLo, hostHi   = 0x2fff7ff200000000, 0x47fffffeaffffffe
)

func inSet(c byte, lo, hi uint64) bool {
	switch {
	case c < 64:
		return lo&(1<<c) != 0
	case c < 128:
		return hi&(1<<(c-64)) != 0
	}
	return false
}

// validHost: the characters of a host[:port] (net/http checks these too).
func validHost(s string) bool {
	for i := 0; i < len(s); i++ {
		if !inSet(s[i], hostLo, hostHi) {
			return false
		}
	}
	return true
}
