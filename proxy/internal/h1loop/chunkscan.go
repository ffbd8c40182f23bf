package h1loop

import (
	"bytes"
	"errors"
)

// chunkScanner follows a chunked body's framing as its bytes pass through
// the HTTP loop unchanged, to know where the answer ends: the rules of
// copyChunked (the lean forwarder's), a read at a time. A size or trailer
// line, and the CRLF after a chunk's data, are taken whole: scan leaves
// one not yet ended for the next call, which gets it again with what came
// after, so that what copyChunked does not pass on (a malformed size line
// or CRLF) is not passed on.
type chunkScanner struct {
	state chunkState
	left  int64 // chunkData: data bytes left in the chunk
	data  int64 // data bytes so far (what a cut body's ledger entry counts)
}

type chunkState uint8

const (
	chunkSizeLine chunkState = iota
	chunkData
	chunkDataEnd
	chunkTrailer
	chunkDone
)

var errMalformedChunked = errors.New("malformed chunked encoding")

// scan takes p, the body's bytes from where the last call stopped: n of
// them belong to it and may go on (a line not yet ended does not, nor
// what follows the body's end), and done says it has ended.
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
		case chunkDataEnd: // its CRLF, taken whole as copyChunked's Peek(2)
			if len(p)-n < 2 {
				return n, false, nil
			}
			if p[n] != '\r' || p[n+1] != '\n' {
				return n, false, errMalformedChunked
			}
			n += 2
			s.state = chunkSizeLine
		default: // a size line, or a trailer line
			i := bytes.IndexByte(p[n:], '\n')
			if i < 0 {
				return n, false, nil // the line goes on in the next read
			}
			trailer := s.state == chunkTrailer
			if err := s.endLine(p[n : n+i+1]); err != nil {
				if trailer {
					n += i + 1 // copyChunked writes a trailer line before it looks at it
				}
				return n, false, err
			}
			n += i + 1
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
