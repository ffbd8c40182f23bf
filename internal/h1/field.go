package h1

import (
	"encoding/binary"
	"math/bits"
)

// Field is one field line as CutField reads it, as offsets into the bytes
// it was given: the name is [0:Colon], the value [ValueStart:ValueEnd]
// without the OWS around it, and the next line starts at Next.
type Field struct{ Colon, ValueStart, ValueEnd, Next int }

// CutField reads the field line at the start of b in one pass (RFC 9112
// §5.1: field-name ":" OWS field-value OWS CRLF): the name must be a
// token followed at once by the colon, and the value must hold no control
// byte but HTAB, nor DEL, before its CRLF (RFC 9110 §5.5: VCHAR, obs-text,
// SP and HTAB). ok is false for anything else: obs-fold (§5.2), white
// space before the colon (which §5.1 makes a server reject), no colon, a
// bare CR or LF, no CRLF in b.
func CutField(b []byte) (f Field, ok bool) {
	i := 0
	for i < len(b) && tchar[b[i]] {
		i++
	}
	if i == 0 || i == len(b) || b[i] != ':' {
		return f, false
	}
	f.Colon = i
	for i++; i < len(b) && (b[i] == ' ' || b[i] == '\t'); i++ {
	}
	f.ValueStart = i
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
			return f, false
		}
		f.ValueEnd, f.Next = i, i+2
		for f.ValueEnd > f.ValueStart && (b[f.ValueEnd-1] == ' ' || b[f.ValueEnd-1] == '\t') {
			f.ValueEnd--
		}
		return f, true
	}
	return f, false
}

// controlBytes marks (its high bit) each of x's eight bytes, little end
// first, that is below 0x20 or is 0x7f: the lowest mark is exact, those
// above it may not be (a borrow spreads from a marked byte upwards), and
// none is missed. Eight value bytes are checked in a few instructions.
func controlBytes(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	del := x ^ 0x7f*ones
	return (x-0x20*ones)&^x&highs | (del-ones)&^del&highs
}
