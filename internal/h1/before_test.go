package h1

import "bytes"

// The load engine's parsing before it used this package (bench/load's
// h1resp.go at 7e1bb2d), kept as FuzzH1's reference: what it accepted,
// this package accepts, with the same reading.

func beforeCutCRLF(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 1 || b[i-1] != '\r' || bytes.IndexByte(b[:i-1], '\r') >= 0 {
		return nil, nil, false
	}
	return b[:i-1], b[i+1:], true
}

// beforeStatus is the status line check of the engine's parseHead.
func beforeStatus(line []byte) (proto uint8, status int, ok bool) {
	if len(line) < 12 || string(line[:7]) != "HTTP/1." || (line[7] != '0' && line[7] != '1') || line[8] != ' ' ||
		(len(line) > 12 && line[12] != ' ') || !isDigit(line[9]) || !isDigit(line[10]) || !isDigit(line[11]) {
		return 0, 0, false
	}
	return 10 + line[7] - '0', int(line[9]-'0')*100 + int(line[10]-'0')*10 + int(line[11]-'0'), true
}

// beforeField is the field line check of the engine's parseHead, on a
// line cut by beforeCutCRLF.
func beforeField(line []byte) (name, value []byte, ok bool) {
	colon := bytes.IndexByte(line, ':')
	if colon <= 0 || !beforeIsToken(line[:colon]) {
		return nil, nil, false
	}
	value = beforeTrimOWS(line[colon+1:])
	for _, c := range value {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return nil, nil, false
		}
	}
	return line[:colon], value, true
}

// beforeContentLength is the Content-Length check of the engine's parseHead.
func beforeContentLength(value []byte) (int64, bool) {
	if len(value) == 0 || len(value) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range value {
		if !isDigit(c) {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

func beforeIsToken(b []byte) bool {
	for _, c := range b {
		if c >= 0x80 || !tchar[c] {
			return false
		}
	}
	return true
}

func beforeTrimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func beforeEqualFold(b []byte, lower string) bool {
	if len(b) != len(lower) {
		return false
	}
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

func beforeHasToken(v []byte, tok string) bool {
	for len(v) > 0 {
		var part []byte
		if i := bytes.IndexByte(v, ','); i >= 0 {
			part, v = v[:i], v[i+1:]
		} else {
			part, v = v, nil
		}
		if beforeEqualFold(beforeTrimOWS(part), tok) {
			return true
		}
	}
	return false
}
