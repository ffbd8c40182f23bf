package mystery

import (
	"errors"
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

func TestAnswersPersistAndReplaceByName(t *testing.T) {
	s := &State{Dir: t.TempDir()}
	for _, a := range []struct{ name, code string }{{"ada", "path-latency"}, {"bob", "server-slow"}, {"ada", "rate-limited"}} {
		if _, err := Submit(s, 3, LevelTwo, a.name, []string{a.code}); err != nil {
			t.Fatal(err)
		}
	}
	as, err := s.Answers(3, LevelTwo)
	if err != nil || len(as) != 2 || as[0].Name != "bob" || as[1].Name != "ada" || as[1].Codes[0] != "rate-limited" {
		t.Fatalf("answers = %+v, %v", as, err)
	}
	if other, _ := s.Answers(3, LevelOne); len(other) != 0 {
		t.Fatalf("level one has answers of level two: %+v", other)
	}
}
