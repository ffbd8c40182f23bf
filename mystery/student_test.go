package mystery

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/middlebench/middlebench/bench/diagnose"
)

// A student's whole exercise: seed 44, level one (a 150 ms WAF) is served
// and driven by the built-in engine; its results document goes to the
// analyzer with the server's /_mb/stats, as `middlebench analyze
// out.json --server-stats server.json` would read them; the analyzer's
// codes are the answer, and reveal scores it against the key the stages'
// counters give.
func TestRevealScoresTheAnalyzersAnswerWithTheLedgersTruth(t *testing.T) {
	m, err := Draw(44, LevelOne)
	if err != nil {
		t.Fatal(err)
	}
	if m.Parts[0].Cause != "waf" {
		t.Fatalf("seed 44 level one drew %s; this test expects the WAF", m.Parts[0].Cause)
	}
	r, res := runExercise(t, m, ExerciseVUs, 3*time.Second)
	doc := res.Document()
	obs, err := diagnose.FromDocument(doc)
	if err != nil {
		t.Fatal(err)
	}
	view := r.Server.Stats()
	obs.Apply(diagnose.Extra{Server: diagnose.ServerFromView(&view, "server.json")})
	rep := diagnose.Analyze(obs, diagnose.DefaultConfig())
	var codes []string
	for _, f := range rep.Findings {
		codes = append(codes, f.Code)
	}
	t.Logf("the analyzer says %v", codes)

	state := &State{Dir: t.TempDir()}
	if _, _, err := Submit(state, m.ID, "analyzer", codes, ViaCLI, ""); err != nil {
		t.Fatal(err)
	}
	k := settled(t, r)
	v := k.Score(Answer{Name: "analyzer", Codes: codes})
	if len(v.Missed) != 0 || len(v.Right) != 1 || v.Right[0].Code != diagnose.CodePathLatency || v.Right[0].Cause != "waf" || v.Right[0].Rule != 6 {
		t.Fatalf("verdict %+v; want path-latency right for the WAF (rule 6), nothing missed", v)
	}
	// Any other code is wrong, and the ledger agrees: on a busy machine
	// (or under -race) the analyzer may call slow handshakes slow, but the
	// TLS stage delayed none of them.
	c, err := r.Counters()
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range v.Wrong {
		t.Logf("wrong, as the key says: %s — %s", w.Code, w.Why)
		if w.Code == diagnose.CodeTLSHandshakeSlow {
			if n := stat(c.stage(whereEdge, "tls"), "delay", "count"); n != 0 {
				t.Errorf("tls-handshake-slow scored wrong, yet the TLS stage delayed %g handshakes", n)
			}
		}
	}
	// The key's numbers are the counters': every request inspected, each
	// for at least the 150 ms drawn, and that is what the analyzer saw
	// outside the server.
	line := k.Lines[0]
	if line.Events != float64(res.Requests) || line.PerEvent < 150 {
		t.Fatalf("key: %g inspections of %.1f ms; the engine sent %d requests and the WAF was told 150 ms", line.Events, line.PerEvent, res.Requests)
	}
	if out := rep.Phases.Outside.Avg; out < 150 {
		t.Fatalf("the analyzer saw %.1f ms outside the server; the WAF alone holds each request 150 ms", out)
	}

	// Reveal from the saved record, as a teacher in another terminal does.
	if err := state.SaveRecord(Record{ID: m.ID, Seed: m.Seed, Level: m.Level, URL: r.URL(), Counters: c}, ""); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := Reveal(&out, state, m.ID, "", false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"waf [cause", "right  path-latency", "rule 6", "analyzer: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("reveal lacks %q:\n%s", want, out.String())
		}
	}
}
