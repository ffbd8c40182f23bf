package diagnose

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// The scorer: every case under testdata/zoo (real k6 through middleboxes
// that are not ours) and testdata/k6runs (real k6 aimed at the harness's
// own experiments) holds one run in up to three k6 formats and a case.yaml
// with the codes its setup implies. The test fails on any wrong code; with
// -score (make score) it also prints the confusion table per format.

var (
	scorePrint = flag.Bool("score", false, "print the scorer's confusion table (make score)")
	scoreExtra = flag.String("corpus", "", "more case folders to score, comma-separated (each holds <case>/case.yaml)")
	scoreTable = flag.String("score-table", "", "print a markdown row per format of these cases (folder names, comma-separated): what they must, may and did name")
)

// scoreCorpora are the folders whose sub-folders are cases.
var scoreCorpora = []string{"testdata/zoo", "testdata/k6runs"}

type scoreRun struct {
	name, format string
	c            *Case
	expect       CodeSet
	got          []string
	alts         []string          // the findings' alternatives
	unshown      map[string]string // code → why this format cannot show it
}

func loadScoreRuns(t *testing.T) []scoreRun {
	t.Helper()
	var runs []scoreRun
	corpora := scoreCorpora
	if *scoreExtra != "" {
		corpora = append(corpora, strings.Split(*scoreExtra, ",")...)
	}
	for _, corpus := range corpora {
		dirs, _ := filepath.Glob(filepath.Join(corpus, "*", "case.yaml"))
		for _, cy := range dirs {
			dir := filepath.Dir(cy)
			c, err := LoadCase(cy)
			if err != nil {
				t.Fatal(err)
			}
			obs, err := c.Observations(context.Background(), dir)
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			for _, o := range obs {
				r := Analyze(o, DefaultConfig())
				runs = append(runs, scoreRun{
					name: filepath.Base(corpus) + "/" + filepath.Base(dir), format: string(o.Format), c: c,
					expect: c.For(o.Format), got: r.Codes(), alts: alternativeCodes(r), unshown: Unshown(o),
				})
			}
		}
	}
	if len(runs) == 0 {
		t.Fatal("no cases found")
	}
	return runs
}

func alternativeCodes(r Report) []string {
	var out []string
	for _, f := range r.Findings {
		for _, a := range f.Alternatives {
			out = append(out, a.Code)
		}
	}
	return out
}

// unsaid: the mention codes named neither as a finding nor as an alternative.
func (r scoreRun) unsaid() []string {
	var out []string
	for _, c := range r.expect.Mention {
		if !slices.Contains(r.got, c) && !slices.Contains(r.alts, c) {
			out = append(out, c)
		}
	}
	return out
}

// namesOneOfMay: a format whose must is empty (its file cannot carry the
// evidence that separates them) must name one of its may codes.
func (r scoreRun) namesOneOfMay() bool {
	if len(r.expect.Must) > 0 {
		return true
	}
	for _, c := range r.expect.May {
		if slices.Contains(r.got, c) {
			return true
		}
	}
	return false
}

// TestCaseLists: the loader refuses lists that cannot fail and makes every
// code that is neither must nor may a mustNot, whatever the file lists.
func TestCaseLists(t *testing.T) {
	dir := t.TempDir()
	write := func(body string) string {
		p := filepath.Join(dir, "case.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, bad := range []struct{ body, want string }{
		{"must: []\nmay: []\n", "must is empty"},
		{"must: []\nmay: [server-slow]\n", "must is empty"},
		{"must: [healthy]\nformats:\n  points: {must: [], may: [], why: cannot}\n", "formats: points: must is empty"},
		{"must: [healthy]\nmay: [healthy]\n", "healthy is in both must and may"},
		{"must: [path-latency]\nmustNot: [path-latency]\n", "path-latency is in both must and mustNot"},
		{"must: [path-latency]\nformats:\n  points: {must: [], may: [path-latency]}\n", "formats: points: must is empty"},
	} {
		if _, err := LoadCase(write(bad.body)); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%q: error %v, want %q", bad.body, err, bad.want)
		}
	}
	c, err := LoadCase(write("must: [path-latency]\nmay: [server-slow]\nmustNot: [healthy]\n" +
		"formats:\n  summary-export: {must: [], may: [rate-limited, tool-blocked], why: no status codes}\n"))
	if err != nil {
		t.Fatal(err)
	}
	all := Codes()
	for _, tc := range []struct {
		f             Format
		must, mustNot []string
	}{
		{FormatNDJSON, []string{"path-latency"}, slices.DeleteFunc(slices.Clone(all), func(c string) bool { return c == "path-latency" || c == "server-slow" })},
		{FormatSummaryExport, nil, slices.DeleteFunc(slices.Clone(all), func(c string) bool { return c == "rate-limited" || c == "tool-blocked" })},
	} {
		s := c.For(tc.f)
		if !slices.Equal(s.Must, tc.must) || !slices.Equal(s.MustNot, tc.mustNot) {
			t.Errorf("%s: must %v mustNot %v, want %v and %v", tc.f, s.Must, s.MustNot, tc.must, tc.mustNot)
		}
	}
	one := scoreRun{expect: c.For(FormatSummaryExport)}
	for _, tc := range []struct {
		got  []string
		want bool
	}{{[]string{"healthy"}, false}, {nil, false}, {[]string{"tool-blocked"}, true}} {
		one.got = tc.got
		if one.namesOneOfMay() != tc.want {
			t.Errorf("must [] may %v, named %v: passes %v, want %v", one.expect.May, tc.got, !tc.want, tc.want)
		}
	}
}

func TestScore(t *testing.T) {
	runs := loadScoreRuns(t)
	for _, r := range runs {
		for _, code := range r.expect.Must {
			if !slices.Contains(r.got, code) && r.unshown[code] == "" {
				t.Errorf("%s [%s]: must name %s, named %v", r.name, r.format, code, r.got)
			}
		}
		if !r.namesOneOfMay() {
			t.Errorf("%s [%s]: must name one of %v (%s), named %v", r.name, r.format, r.expect.May, r.expect.Why, r.got)
		}
		if u := r.unsaid(); len(u) > 0 {
			t.Errorf("%s [%s]: must say %v, as a finding or an alternative (%s); named %v, alternatives %v", r.name, r.format, u, r.expect.Why, r.got, r.alts)
		}
		for _, code := range r.expect.MustNot {
			if slices.Contains(r.got, code) {
				t.Errorf("%s [%s]: must not name %s, named %v", r.name, r.format, code, r.got)
			}
		}
	}
	// The same run's formats agree where each holds the evidence: a code
	// named from one file is named from the others unless the case lets it
	// be (may) or the other format cannot show it.
	byCase := map[string][]scoreRun{}
	for _, r := range runs {
		byCase[r.name] = append(byCase[r.name], r)
	}
	for name, rs := range byCase {
		for _, a := range rs {
			for _, code := range a.got {
				for _, b := range rs {
					if b.format == a.format || slices.Contains(b.got, code) || b.unshown[code] != "" ||
						slices.Contains(b.expect.May, code) || slices.Contains(a.expect.May, code) {
						continue
					}
					t.Errorf("%s: %s names %s, %s does not (%v vs %v)", name, a.format, code, b.format, a.got, b.got)
				}
			}
		}
	}
	if *scorePrint {
		printScore(runs)
	}
	if *scoreTable != "" {
		printScoreTable(runs, strings.Split(*scoreTable, ","))
	}
}

// printScoreTable prints one markdown row per format of the named cases:
// right, or the must codes it missed and the codes it named that it must not.
func printScoreTable(runs []scoreRun, cases []string) {
	fmt.Println("| case | format | must | may | named | right | missing | extra |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, name := range cases {
		for _, r := range runs {
			if !strings.HasSuffix(r.name, "/"+name) {
				continue
			}
			var missing, extra []string
			for _, c := range r.expect.Must {
				switch {
				case slices.Contains(r.got, c):
				case r.unshown[c] != "":
					missing = append(missing, "("+c+": not in this format)")
				default:
					missing = append(missing, c)
				}
			}
			if !r.namesOneOfMay() {
				missing = append(missing, "one of "+strings.Join(r.expect.May, "/"))
			}
			for _, c := range r.unsaid() {
				missing = append(missing, "say "+c)
			}
			for _, c := range r.expect.MustNot {
				if slices.Contains(r.got, c) {
					extra = append(extra, c)
				}
			}
			right := "yes"
			if len(extra) > 0 || slices.ContainsFunc(missing, func(m string) bool { return !strings.HasPrefix(m, "(") }) {
				right = "no"
			}
			dash := func(l []string) string {
				if len(l) == 0 {
					return "—"
				}
				return strings.Join(l, " ")
			}
			fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", name, r.format, dash(r.expect.Must), dash(r.expect.May),
				dash(r.got), right, dash(missing), dash(extra))
		}
	}
}

// printScore prints, per format, the cases fully right and each code's
// precision (named where it must be, over named where it must or must
// not) and recall (named over must).
func printScore(runs []scoreRun) {
	formats := map[string][]scoreRun{}
	for _, r := range runs {
		corpus, _, _ := strings.Cut(r.name, "/")
		formats[r.format+" · "+corpus] = append(formats[r.format+" · "+corpus], r)
		formats[r.format+" · all"] = append(formats[r.format+" · all"], r)
	}
	for _, f := range slices.Sorted(maps.Keys(formats)) {
		type cell struct{ tp, fp, fn int }
		cells := map[string]*cell{}
		get := func(c string) *cell {
			if cells[c] == nil {
				cells[c] = &cell{}
			}
			return cells[c]
		}
		right := 0
		for _, r := range formats[f] {
			ok := true
			for _, c := range r.expect.Must {
				switch {
				case slices.Contains(r.got, c):
					get(c).tp++
				case r.unshown[c] == "":
					get(c).fn++
					ok = false
				}
			}
			for _, c := range r.expect.MustNot {
				if slices.Contains(r.got, c) {
					get(c).fp++
					ok = false
				}
			}
			if !r.namesOneOfMay() || len(r.unsaid()) > 0 {
				ok = false
			}
			if ok {
				right++
			}
		}
		fmt.Printf("\n%s: %d/%d cases fully right\n", f, right, len(formats[f]))
		fmt.Printf("  %-24s %4s %4s %4s %10s %8s\n", "code", "tp", "fp", "fn", "precision", "recall")
		codes := slices.Sorted(maps.Keys(cells))
		sort.Strings(codes)
		for _, c := range codes {
			x := cells[c]
			fmt.Printf("  %-24s %4d %4d %4d %10s %8s\n", c, x.tp, x.fp, x.fn, ratio(x.tp, x.tp+x.fp), ratio(x.tp, x.tp+x.fn))
		}
		var wrong []string
		for _, r := range formats[f] {
			var bad []string
			for _, c := range r.expect.Must {
				if !slices.Contains(r.got, c) && r.unshown[c] == "" {
					bad = append(bad, "-"+c)
				}
			}
			for _, c := range r.expect.MustNot {
				if slices.Contains(r.got, c) {
					bad = append(bad, "+"+c)
				}
			}
			if !r.namesOneOfMay() {
				bad = append(bad, "-one of "+strings.Join(r.expect.May, "|"))
			}
			for _, c := range r.unsaid() {
				bad = append(bad, "-say "+c)
			}
			if len(bad) > 0 {
				wrong = append(wrong, fmt.Sprintf("    %s: %s (named %v)", r.name, strings.Join(bad, " "), r.got))
			}
		}
		if len(wrong) > 0 {
			fmt.Println("  wrong:")
			fmt.Println(strings.Join(wrong, "\n"))
		}
	}
	fmt.Fprintln(os.Stdout)
}

func ratio(a, b int) string {
	if b == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

// TestMentionMustBeSaid: a code in mention passes only when it is named,
// as a finding or as a finding's alternative; the loader refuses one that
// is neither must nor may.
func TestMentionMustBeSaid(t *testing.T) {
	r := scoreRun{expect: CodeSet{May: []string{CodeToolBlocked, CodeUpstreamFailing}, Mention: []string{CodeUpstreamFailing}}}
	for _, tc := range []struct {
		got, alts []string
		want      bool
	}{
		{[]string{CodeToolBlocked}, []string{CodeUpstreamFailing}, true},
		{[]string{CodeUpstreamFailing}, nil, true},
		{[]string{CodeToolBlocked}, []string{CodeRateLimited}, false},
		{[]string{CodeToolBlocked}, nil, false},
	} {
		r.got, r.alts = tc.got, tc.alts
		if said := len(r.unsaid()) == 0; said != tc.want {
			t.Errorf("named %v, alternatives %v: said %v, want %v", tc.got, tc.alts, said, tc.want)
		}
	}
	p := filepath.Join(t.TempDir(), "case.yaml")
	if err := os.WriteFile(p, []byte("what: x\nmust: [tool-blocked]\nmention: [upstream-failing]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCase(p); err == nil || !strings.Contains(err.Error(), "mention upstream-failing") {
		t.Errorf("LoadCase: %v, want a refusal naming the mention", err)
	}
}
