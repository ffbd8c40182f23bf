package h1

// maxChunkDigits: a size of more than 16 hexadecimal digits is refused
// whatever its leading zeros, as net/http refuses it.
const maxChunkDigits = 16

// ChunkSize reads a chunk-size line without its CRLF (CutLine's line):
// chunk-size [chunk-ext] (RFC 9112 §7.1), the size 1*HEXDIG of at most 16
// digits and at most the largest int64. The extensions, from the first
// ';', are skipped unread (§7.1.1 has a recipient ignore those it does not
// know; these callers know none); the BWS before that ';' is allowed, and,
// as net/http allows it, spaces and tabs after a size with no extension.
// A size of 0 is the last chunk.
func ChunkSize[T string | []byte](line T) (size int64, ok bool) {
	end := 0
	for end < len(line) && line[end] != ';' {
		end++
	}
	for end > 0 && (line[end-1] == ' ' || line[end-1] == '\t') {
		end--
	}
	if end == 0 || end > maxChunkDigits {
		return 0, false
	}
	for i := 0; i < end; i++ {
		d, ok := hexDigit(line[i])
		if !ok || size > (1<<63-1-d)/16 {
			return 0, false
		}
		size = size*16 + d
	}
	return size, true
}

func hexDigit(c byte) (int64, bool) {
	switch {
	case '0' <= c && c <= '9':
		return int64(c - '0'), true
	case 'a' <= c && c <= 'f':
		return int64(c-'a') + 10, true
	case 'A' <= c && c <= 'F':
		return int64(c-'A') + 10, true
	}
	return 0, false
}
