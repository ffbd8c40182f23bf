package bench

import (
	"fmt"
	"strings"
)

// k6Command is real k6's command line against a served run. It is the one
// description of that command: `run --serve-only` prints it
// (printServeHelp) and the harness starts it (runK6), so the two cannot
// drift apart — above all in the namespace k6 must run in when the path
// has a wire, where the entry is reachable only from the generator's side.
type k6Command struct {
	Netns string   // the wire's generator namespace to run k6 in, or "" for the caller's
	Args  []string // after the executable: run [flags] SCRIPT
}

// k6CommandFor is `k6 run` aimed at info's entry with flags, on script.
func k6CommandFor(info serveInfo, script string, flags ...string) k6Command {
	args := []string{"run"}
	if strings.HasPrefix(info.Entry, "https://") {
		args = append(args, "--insecure-skip-tls-verify") // the loopback's self-signed certificate
	}
	args = append(args, "-e", "TARGET="+info.Entry)
	args = append(args, flags...)
	return k6Command{Netns: info.Gen, Args: append(args, script)}
}

// shell is the command as a person types it, exe being k6's name: under
// `ip netns exec` when k6 must run in the wire's namespace. The harness
// does not go through ip(8): it starts k6 from a thread switched into
// the namespace (genEnter), which is what `ip netns exec` does for the
// network, the only namespace that matters to k6.
func (c k6Command) shell(exe string) string {
	words := append([]string{exe}, c.Args...)
	if c.Netns != "" {
		words = append([]string{"ip", "netns", "exec", c.Netns}, words...)
	}
	for i, w := range words {
		words[i] = shellWord(w)
	}
	return strings.Join(words, " ")
}

// shellWord quotes w for a POSIX shell when it holds anything but the
// characters a URL, a path or a flag is made of.
func shellWord(w string) string {
	if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=@%+,") == "" {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// infoOf is where t serves, as a serving process reports it.
func infoOf(t target) serveInfo {
	switch t := t.(type) {
	case *localTarget:
		return t.info()
	case *childTarget:
		return t.info
	}
	return serveInfo{Entry: t.entry(), Server: t.serverURL()}
}

// genEnter returns how to start a process in namespace ns: through the
// wire's Namespace.Do, which runs the start on an OS thread switched into
// the namespace (a forked child inherits its thread's network namespace,
// so k6 and every socket it opens live there) and switches the thread
// back, or retires it if it cannot. No ip(8), no shell, no second
// description of the namespace. With ns "" the start runs as it is.
func genEnter(t target, ns string) (func(func() error) error, error) {
	if ns == "" {
		return func(start func() error) error { return start() }, nil
	}
	if wt, ok := t.(wired); ok && wt.wire() != nil && wt.wire().Gen().Name() == ns {
		return wt.wire().Gen().Do, nil
	}
	return nil, fmt.Errorf("k6 must run in the wire's generator namespace %s, which this process does not hold (a wire served by an isolated child is not supported)", ns)
}
