package h1

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// FuzzH1 reads its input with every function of the package, as bytes and
// as a string, and checks that none panics, that the two readings agree,
// that what a function accepts puts back together into its input (a line
// and its CRLF, a start line from its parts, a number printed again), and
// that what the load engine's own parser accepted before (before_test.go)
// is accepted the same way.
func FuzzH1(f *testing.F) {
	for _, s := range []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nServer-Timing: app;dur=1.5\r\n\r\n",
		"HTTP/1.0 204\r\nConnection: keep-alive, Close\r\n\r\n",
		"GET /a?b HTTP/1.1\r\nHost: x:80\r\nX: caf\xc3\xa9 \t\r\n\r\n",
		"1a;ext=v\r\nabc\r\n0\r\n\r\n",
		"Content-Length: 0009223372036854775807\r\n",
		"X: a\r\n b\r\n", "X: a\rb\r\n", "X: a\nb\r\n", "Host : x\r\n",
		"HTTP/1.1 200 \x00\r\n", "close , ,keep-alive,",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := string(b)
		line, rest, ok := CutLine(b)
		sl, sr, sok := CutLine(s)
		if ok != sok || string(line) != sl || string(rest) != sr {
			t.Fatalf("CutLine(%q): bytes %q %q %v, string %q %q %v", b, line, rest, ok, sl, sr, sok)
		}
		bl, br, bok := beforeCutCRLF(b)
		if ok != bok || ok && (!bytes.Equal(line, bl) || !bytes.Equal(rest, br)) {
			t.Fatalf("CutLine(%q) = %q %q %v, before %q %q %v", b, line, rest, ok, bl, br, bok)
		}
		if ok && (sl+"\r\n"+sr != s || strings.ContainsAny(sl, "\r\n")) {
			t.Fatalf("CutLine(%q) = %q, %q: not a line and what follows it", s, sl, sr)
		}
		want := 0
		if i := bytes.Index(b, []byte("\r\n\r\n")); i >= 0 {
			want = i + 4
		}
		if HeadEnd(b) != want {
			t.Fatalf("HeadEnd(%q) = %d, want %d", b, HeadEnd(b), want)
		}
		if bare := bytes.Contains(bytes.ReplaceAll(b, []byte("\r\n"), nil), []byte("\n")); HasBareLF(b) != bare {
			t.Fatalf("HasBareLF(%q) = %v", b, !bare)
		}
		checkStartLines(t, line, ok)
		checkField(t, b)
		checkValues(t, b)
	})
}

func checkStartLines(t *testing.T, line []byte, ok bool) {
	st, sok := ParseStatusLine(line)
	if sst, ssok := ParseStatusLine(string(line)); ssok != sok || sst.Code != st.Code || sst.Reason != string(st.Reason) {
		t.Fatalf("ParseStatusLine(%q): bytes %+v %v, string %+v %v", line, st, sok, sst, ssok)
	}
	if sok {
		again := fmt.Sprintf("HTTP/%d.%d %03d", st.Major, st.Minor, st.Code)
		if tail := string(line[12:]); string(line[:12]) != again || tail != "" && tail != " "+string(st.Reason) {
			t.Fatalf("ParseStatusLine(%q) = %+v: not its line", line, st)
		}
	}
	proto, code, bok := beforeStatus(line)
	if ok && bok != (sok && st.Major == 1 && st.Minor <= 1) || bok && (int(proto) != st.Major*10+st.Minor || code != st.Code) {
		t.Fatalf("ParseStatusLine(%q) = %+v %v, before %d %d %v", line, st, sok, proto, code, bok)
	}
	rl, rok := ParseRequestLine(line)
	if srl, srok := ParseRequestLine(string(line)); srok != rok || srl.Method != string(rl.Method) || srl.Target != string(rl.Target) {
		t.Fatalf("ParseRequestLine(%q): bytes %+v %v, string %+v %v", line, rl, rok, srl, srok)
	}
	if rok {
		if again := fmt.Sprintf("%s %s HTTP/%d.%d", rl.Method, rl.Target, rl.Major, rl.Minor); again != string(line) {
			t.Fatalf("ParseRequestLine(%q) = %+v: not its line", line, rl)
		}
		if !IsToken(rl.Method) || bytes.ContainsFunc(rl.Target, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
			t.Fatalf("ParseRequestLine(%q) = %+v: a method or target of the wrong bytes", line, rl)
		}
	}
}

func checkField(t *testing.T, b []byte) {
	f, ok := CutField(b)
	var name, value []byte
	line, _, bok := beforeCutCRLF(b)
	if bok {
		name, value, bok = beforeField(line)
	}
	if ok != bok || ok && (!bytes.Equal(b[:f.Colon], name) || !bytes.Equal(b[f.ValueStart:f.ValueEnd], value) || f.Next != len(line)+2) {
		t.Fatalf("CutField(%q) = %+v %v, before %q %q %v", b, f, ok, name, value, bok)
	}
	if ok && (b[f.Colon] != ':' || !bytes.Equal(TrimOWS(b[f.Colon+1:f.Next-2]), b[f.ValueStart:f.ValueEnd]) ||
		string(b[f.Next-2:f.Next]) != "\r\n") {
		t.Fatalf("CutField(%q) = %+v: not its line", b, f)
	}
}

// checkValues reads b as a field value, a chunk-size line and a list.
func checkValues(t *testing.T, b []byte) {
	n, ok := ContentLength(b)
	if sn, sok := ContentLength(string(b)); sn != n || sok != ok {
		t.Fatalf("ContentLength(%q): bytes %d %v, string %d %v", b, n, ok, sn, sok)
	}
	if ok && strings.TrimLeft(string(b), "0") != strings.TrimLeft(strconv.FormatInt(n, 10), "0") {
		t.Fatalf("ContentLength(%q) = %d", b, n)
	}
	if want, err := strconv.ParseUint(string(b), 10, 63); ok != (err == nil && b[0] != '+') || ok && uint64(n) != want {
		t.Fatalf("ContentLength(%q) = %d %v, strconv %d %v", b, n, ok, want, err)
	}
	if bn, bok := beforeContentLength(b); bok && (!ok || bn != n) {
		t.Fatalf("ContentLength(%q) = %d %v, before %d", b, n, ok, bn)
	}
	size, ok := ChunkSize(b)
	if ss, sok := ChunkSize(string(b)); ss != size || sok != ok {
		t.Fatalf("ChunkSize(%q): bytes %d %v, string %d %v", b, size, ok, ss, sok)
	}
	digits, _, _ := strings.Cut(string(b), ";")
	digits = strings.TrimRight(digits, " \t")
	if want, err := strconv.ParseUint(digits, 16, 63); ok != (err == nil && len(digits) <= 16 && digits[0] != '+') ||
		ok && uint64(size) != want {
		t.Fatalf("ChunkSize(%q) = %d %v, strconv %d %v", b, size, ok, want, err)
	}
	for _, tok := range []string{"close", "keep-alive", "chunked"} {
		if got, before := HasToken(b, tok), beforeHasToken(b, tok); got != before || HasToken(string(b), tok) != got {
			t.Fatalf("HasToken(%q, %q) = %v, before %v", b, tok, got, before)
		}
	}
	if IsToken(b) != (len(b) > 0 && beforeIsToken(b)) || IsToken(string(b)) != IsToken(b) {
		t.Fatalf("IsToken(%q) = %v", b, IsToken(b))
	}
}
