package mystery

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScore(t *testing.T) {
	key := Key{Lines: []KeyLine{
		{Part: Part{Cause: "waf", Rule: 6, Codes: []string{"path-latency"}}},
		{Part: Part{Cause: "ratelimit", Rule: 8, Codes: []string{"rate-limited"}}},
		{Part: Part{Cause: "tls-delay", Decoy: true, Rule: 2, Codes: []string{"tls-handshake-slow", "hidden-connection-cost"}}},
	}}
	for _, tc := range []struct {
		codes                []string
		right, wrong, missed int
		decoyNamed           bool
	}{
		{[]string{"path-latency", "rate-limited"}, 2, 0, 0, false},
		{[]string{"path-latency"}, 1, 0, 1, false},
		{[]string{"tls-handshake-slow"}, 0, 1, 2, true},
		{[]string{"server-slow", "rate-limited"}, 1, 1, 1, false},
	} {
		v := key.Score(Answer{Name: "x", Codes: tc.codes})
		if len(v.Right) != tc.right || len(v.Wrong) != tc.wrong || len(v.Missed) != tc.missed {
			t.Errorf("%v: right %d wrong %d missed %d, want %d %d %d", tc.codes, len(v.Right), len(v.Wrong), len(v.Missed), tc.right, tc.wrong, tc.missed)
		}
		if tc.decoyNamed && (len(v.Wrong) == 0 || v.Wrong[0].Cause != "tls-delay") {
			t.Errorf("%v: naming the decoy should say so: %+v", tc.codes, v.Wrong)
		}
	}
}

// A rate limiter read off a summary export looks like a blocked tool (the
// file has no statuses): the verdict says what the ledger counted and
// which file tells them apart; the other way round too.
func TestScoreSaysWhatTheLedgerCountedForLookalikes(t *testing.T) {
	for _, tc := range []struct {
		cause, code, want string
	}{
		{"ratelimit", "tool-blocked", "answered 412 requests 429"},
		{"uablock", "rate-limited", "412 requests were answered 403"},
	} {
		key := Key{Requests: 500, Lines: []KeyLine{{Part: Part{Cause: tc.cause, Codes: []string{"x"}}, Effect: Effect{Acted: true, Failed: 412}}}}
		v := key.Score(Answer{Name: "x", Codes: []string{tc.code}})
		if len(v.Wrong) != 1 || !strings.Contains(v.Wrong[0].Why, tc.want) || !strings.Contains(v.Wrong[0].Why, "--out json=") {
			t.Errorf("%s answered %s: %+v; want it wrong, with the ledger's %q and the NDJSON hint", tc.cause, tc.code, v.Wrong, tc.want)
		}
	}
}

func TestCheckCodes(t *testing.T) {
	got, err := CheckCodes([]string{"Path-Latency, rate-limited", "path-latency"})
	if err != nil || len(got) != 2 || got[0] != "path-latency" || got[1] != "rate-limited" {
		t.Fatalf("CheckCodes = %v, %v", got, err)
	}
	for _, bad := range [][]string{{"slow"}, {""}, nil} {
		if _, err := CheckCodes(bad); !errors.Is(err, ErrCode) {
			t.Errorf("CheckCodes(%q): %v, want ErrCode", bad, err)
		}
	}
}

// A second answer under a name is a revision: both are kept, the last is
// scored; answers of one mystery are not another's.
func TestAnswersKeepRevisions(t *testing.T) {
	s := &State{Dir: t.TempDir()}
	id := MysteryID(3, LevelTwo, "")
	for _, a := range []struct{ name, code string }{{"ada", "path-latency"}, {"bob", "server-slow"}, {"Ada", "rate-limited"}} {
		if _, _, err := Submit(s, id, a.name, []string{a.code}, ViaCLI, ""); err != nil {
			t.Fatal(err)
		}
	}
	all, err := s.Answers(id)
	if err != nil || len(all) != 3 {
		t.Fatalf("answers = %+v, %v; want all 3 kept", all, err)
	}
	latest := Latest(all)
	if len(latest) != 2 || latest[0].Name != "Ada" || latest[0].Codes[0] != "rate-limited" || latest[0].Revision != 2 || latest[1].Name != "bob" {
		t.Fatalf("latest = %+v; want Ada's revision 2 (rate-limited), then bob", latest)
	}
	// A file that is not an answer is left out, named, and the others read.
	os.WriteFile(filepath.Join(s.answersDir(id), "99999999999999999999-zz.json"), []byte("{not json"), 0o644)
	again, err := s.Answers(id)
	if len(again) != 3 || !errors.Is(err, ErrBadAnswer) || !strings.Contains(err.Error(), "99999999999999999999-zz.json") {
		t.Fatalf("with a stray file: %d answers, %v; want the 3 and ErrBadAnswer naming the file", len(again), err)
	}
	if other, _ := s.Answers(MysteryID(3, LevelOne, "")); len(other) != 0 {
		t.Fatalf("level one has answers of level two: %+v", other)
	}
}

// A web answer's name is claimed with a token: the same name from the web
// without the token is refused, with it is a revision; a name first used
// from the CLI cannot be taken over from the web.
func TestWebAnswersCannotOverwriteAnothers(t *testing.T) {
	s := &State{Dir: t.TempDir()}
	id := MysteryID(5, LevelOne, "")
	_, tok, err := Submit(s, id, "ada", []string{"path-latency"}, ViaWeb, "")
	if err != nil || tok == "" {
		t.Fatalf("first web answer: token %q, %v", tok, err)
	}
	if _, _, err := Submit(s, id, "ADA", []string{"server-slow"}, ViaWeb, ""); !errors.Is(err, ErrNameTaken) {
		t.Fatalf("same name without the token: %v, want ErrNameTaken", err)
	}
	if _, _, err := Submit(s, id, "ada", []string{"server-slow"}, ViaWeb, "not-the-token"); !errors.Is(err, ErrNameTaken) {
		t.Fatalf("same name with a wrong token: %v, want ErrNameTaken", err)
	}
	if _, again, err := Submit(s, id, "ada", []string{"rate-limited"}, ViaWeb, tok); err != nil || again != "" {
		t.Fatalf("revision with the token: %q, %v", again, err)
	}
	// A browser's token from another mystery does not spoil a first
	// answer here: it gets a token of its own.
	if _, fresh, err := Submit(s, id, "cy", []string{"server-slow"}, ViaWeb, "stale-token"); err != nil || fresh == "" {
		t.Fatalf("a first answer with a stale token: %q, %v", fresh, err)
	}
	if _, _, err := Submit(s, id, "bob", []string{"server-slow"}, ViaCLI, ""); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Submit(s, id, "bob", []string{"path-latency"}, ViaWeb, ""); !errors.Is(err, ErrNameTaken) {
		t.Fatalf("a CLI name taken from the web: %v, want ErrNameTaken", err)
	}
	all, _ := s.Answers(id)
	got := fmt.Sprint(len(all), Latest(all)[0].Codes, Latest(all)[0].Revision)
	if got != "4 [rate-limited] 2" {
		t.Fatalf("kept %s; want 4 answers, ada's last rate-limited as revision 2", got)
	}
	for _, bad := range []string{"", "   ", strings.Repeat("x", 65), "a/b", "x\ny", "<script>"} {
		if _, _, err := Submit(s, id, bad, []string{"path-latency"}, ViaWeb, ""); !errors.Is(err, ErrName) {
			t.Errorf("name %q: %v, want ErrName", bad, err)
		}
	}
	if _, _, err := Submit(s, "m0123456789ab", "cy", []string{"path-latency"}, ViaCLI, ""); !errors.Is(err, ErrNoMystery) {
		t.Errorf("an id that never ran: %v, want ErrNoMystery", err)
	}
}
