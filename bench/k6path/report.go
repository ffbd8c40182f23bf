package k6path

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/middlebench/middlebench/proxy"
)

// write prints what each box did beside what k6 and the server counted,
// then the analyzer's findings.
func (r *Result) write(w io.Writer) error {
	fmt.Fprintf(w, "\nk6 exited %d; its files and the views are in %s\n", r.ExitCode, r.Dir)
	fmt.Fprintf(w, "\nwhat k6 counted (its NDJSON stream): %d requests%s, %d iterations\n",
		r.Stream.Requests, statuses(r.Stream.Statuses), r.Stream.Iterations)
	fmt.Fprintf(w, "what the server counted:             %d requests%s\n", r.Server.Requests, statuses(r.Server.Statuses))
	if r.Path != nil {
		fmt.Fprintln(w, "what each box did:")
		for _, b := range r.Path.Boxes {
			fmt.Fprintf(w, "  box %s: %d connections, %d requests\n", b.Name, b.Accepted, b.Requests)
			for _, st := range b.Stages {
				fmt.Fprintf(w, "    %s\n", stageLine(st))
			}
		}
	}
	if line := r.agreement(); line != "" {
		fmt.Fprintln(w, line)
	}
	fmt.Fprintln(w)
	return r.Report.WriteText(w)
}

func stageLine(st proxy.StageStats) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%-10s seen %d, passed %d", st.Kind, st.Seen, st.Passed)
	keys := make([]string, 0, len(st.Rejected))
	for k := range st.Rejected {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&sb, ", %s×%d", k, st.Rejected[k])
	}
	if st.Delay != nil {
		fmt.Fprintf(&sb, "; added p50 %.1f ms, p99 %.1f ms", st.Delay["med"], st.Delay["p(99)"])
	}
	return sb.String()
}

func statuses(m map[string]int64) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s×%d", k, m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

func joinHosts(h []string) string { return strings.Join(h, ", ") }

// agreement sets k6's counts beside the path's entry's and the boxes' 429s,
// = where they agree and ≠ where they do not (a request k6 gave up on
// mid-way, a box that answered for another client).
func (r *Result) agreement() string {
	if r.Path == nil || len(r.Path.Boxes) == 0 || r.Path.Boxes[0].Mode != proxy.ModeHTTP {
		return ""
	}
	var rejected int64
	for _, b := range r.Path.Boxes {
		for _, st := range b.Stages {
			rejected += st.Rejected["429"]
		}
	}
	return fmt.Sprintf("counts: k6's requests %d %s the first box's %d; k6's 429s %d %s the boxes' %d",
		r.Stream.Requests, eq(r.Stream.Requests, r.Path.Boxes[0].Requests), r.Path.Boxes[0].Requests,
		r.Stream.Statuses["429"], eq(r.Stream.Statuses["429"], rejected), rejected)
}

func eq(a, b int64) string {
	if a == b {
		return "="
	}
	return "≠"
}
