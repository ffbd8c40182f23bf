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
