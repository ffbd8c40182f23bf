package mystery

import (
	"fmt"
	"io"
	"strings"
)

// WriteReveal prints the answer key and, for each student's last answer,
// its verdict (all holds every answer given, revisions included).
func WriteReveal(w io.Writer, k Key, all []Answer) {
	answers := Latest(all)
	fmt.Fprintf(w, "mystery %s (seed %d, level %s) — the answer key", k.ID, k.Seed, k.Level)
	if k.Requests > 0 {
		fmt.Fprintf(w, " (%g requests, %g connections through the path)", k.Requests, k.Connections)
	}
	fmt.Fprintln(w)
	for i, l := range k.Lines {
		role := "cause"
		if l.Decoy {
			role = "DECOY"
		}
		fmt.Fprintf(w, "\n  %d. %s [%s, %s] — %s\n", i+1, l.Cause, role, where(l.Part), l.What)
		for _, f := range l.Facts {
			fmt.Fprintf(w, "     did: %s\n", f)
		}
		if len(l.Phases) > 0 {
			var ps []string
			for _, p := range l.Phases {
				ps = append(ps, fmt.Sprintf("%s %.1f ms", p.Phase, p.Ms))
			}
			fmt.Fprintf(w, "     explains, per request on average: %s\n", strings.Join(ps, ", "))
		}
		if l.Failed > 0 {
			fmt.Fprintf(w, "     made %g requests fail\n", l.Failed)
		}
		switch {
		case l.Decoy && !l.Acted:
			fmt.Fprintf(w, "     a decoy: it is there, it did nothing worth naming; naming %s is wrong\n", strings.Join(l.Codes, " or "))
		case l.Decoy:
			fmt.Fprintf(w, "     a decoy, but it acted this time (%.1f ms per event): the load was unusual\n", l.PerEvent)
		default:
			fmt.Fprintf(w, "     named by: %s — rule %d: %s\n", strings.Join(l.Codes, " or "), l.Rule, Rule(l.Rule))
			if l.Cause == "ratelimit" || l.Cause == "uablock" {
				fmt.Fprintf(w, "     (429 or 403: %s)\n", statusHint)
			}
			if k.Requests > 0 && !l.Acted {
				fmt.Fprintf(w, "     (it did not act on this load: run the exercise's load, then reveal again)\n")
			}
		}
	}
	if k.Budget != nil {
		fmt.Fprintf(w, "\n  and, apart from the puzzle: %s\n", k.Budget.text())
	}
	for _, n := range k.Notes {
		fmt.Fprintf(w, "\n  note: %s\n", n)
	}
	if len(answers) == 0 {
		fmt.Fprintf(w, "\nno answers yet\n")
		return
	}
	fmt.Fprintf(w, "\nanswers (%s, %s given):\n", count(len(answers), "student"), count(len(all), "answer"))
	perfect := 0
	for _, a := range answers {
		v := k.Score(a)
		if len(v.Wrong) == 0 && len(v.Missed) == 0 {
			perfect++
		}
		rev := ""
		if a.Revision > 1 {
			rev = fmt.Sprintf("   (revision %d; the earlier ones are kept)", a.Revision)
		}
		fmt.Fprintf(w, "  %s: %s   [%s, %s]%s\n", a.Name, strings.Join(a.Codes, " "), a.Via, a.At, rev)
		for _, m := range v.Right {
			fmt.Fprintf(w, "     right  %s — %s\n", m.Code, m.Why)
		}
		for _, m := range v.Wrong {
			fmt.Fprintf(w, "     wrong  %s — %s\n", m.Code, m.Why)
		}
		for _, l := range v.Missed {
			fmt.Fprintf(w, "     missed %s (%s) — rule %d would have found it: %s\n", l.Cause, strings.Join(l.Codes, " or "), l.Rule, Rule(l.Rule))
			if k.Requests > 0 && !l.Acted {
				fmt.Fprintf(w, "            (the ledger shows it did not act on this load: nothing to see, so nothing to hold against the answer)\n")
			}
		}
	}
	fmt.Fprintf(w, "\n%d of %d answers named every cause and nothing else\n", perfect, len(answers))
}

func where(p Part) string {
	switch p.Where {
	case whereServer:
		return "the server"
	case whereNet:
		return "net box, " + p.Stage
	}
	return "edge box, " + p.Stage
}

// count says n things ("1 student", "30 students").
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}
