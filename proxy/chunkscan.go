package proxy

import (
	"bytes"
	"errors"
)

// chunkScanner follows a chunked body's framing as its bytes pass through
// the HTTP loop unchanged, to know where the answer ends: the rules of
// copyChunked (the lean forwarder's), a read at a time. A size or trailer
// line split between reads is kept until its end comes.
type chunkScanner struct {
	state chunkState
	left  int64  // chunkData: data bytes left in the chunk; chunkDataEnd: bytes of its CRLF seen
	line  []byte // a line begun in an earlier read
	data  int64  // data bytes so far (what a cut body's ledger entry counts)
}

type chunkState uint8

const (
	chunkSizeLine chunkState = iota
	chunkData
	chunkDataEnd
	chunkTrailer
	chunkDone
)

// maxChunkLine: a size or trailer line longer than this is malformed (the
// lean forwarder reads lines within its 32 KiB buffer).
const maxChunkLine = 32 << 10

var errMalformedChunked = errors.New("malformed chunked encoding")

// scan takes p, the next bytes of the body: n of them belong to it (the
// rest follow its end), and done says it has ended.
func (s *chunkScanner) scan(p []byte) (n int, done bool, err error) {
	for n < len(p) && s.state != chunkDone {
		switch s.state {
		case chunkData:
			k := min(int64(len(p)-n), s.left)
			n += int(k)
			s.left -= k
			s.data += k
			if s.left == 0 {
				s.state = chunkDataEnd
			}
		case chunkDataEnd:
			if p[n] != "\r\n"[s.left] {
				return n, false, errMalformedChunked
			}
			n++
			if s.left++; s.left == 2 {
				s.state, s.left = chunkSizeLine, 0
			}
		default: // a size line, or a trailer line
			i := bytes.IndexByte(p[n:], '\n')
			if i < 0 {
				if len(s.line)+len(p)-n > maxChunkLine {
					return n, false, errMalformedChunked
				}
				s.line = append(s.line, p[n:]...)
				n = len(p)
				continue
			}
			line := p[n : n+i+1]
			if len(s.line) > 0 {
				if len(s.line)+len(line) > maxChunkLine {
					return n, false, errMalformedChunked
				}
				s.line = append(s.line, line...)
				line = s.line
			}
			n += i + 1
			if err := s.endLine(line); err != nil {
				return n, false, err
			}
			s.line = s.line[:0]
		}
	}
	return n, s.state == chunkDone, nil
}

// endLine acts on a whole size or trailer line (with its LF).
func (s *chunkScanner) endLine(line []byte) error {
	if s.state == chunkSizeLine {
		size, ok := chunkSize(line)
		switch {
		case !ok:
			return errMalformedChunked
		case size == 0:
			s.state = chunkTrailer
		default:
			s.state, s.left = chunkData, size
		}
		return nil
	}
	if len(line) > 2 {
		return nil // a trailer, passed on as it is
	}
	if !bytes.Equal(line, []byte("\r\n")) {
		return errMalformedChunked
	}
	s.state = chunkDone
	return nil
}
