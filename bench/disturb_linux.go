package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/middlebench/middlebench/bench/record"
	"github.com/middlebench/middlebench/internal/procstat"
)

// sampleLoad reads the busy and stolen time of cpus (/proc/stat) and the
// CPU of this process's tree.
func sampleLoad(cpus []int) (record.LoadSample, bool) {
	s := record.LoadSample{At: time.Now()}
	for _, c := range cpus {
		t, ok := procstat.Read("cpu" + strconv.Itoa(c))
		if !ok {
			return s, false
		}
		s.Busy += t.Busy()
		s.Steal += t.Steal
	}
	ours, ok := treeCPU(os.Getpid(), 0)
	s.Ours = ours
	return s, ok
}

// maxTreeDepth bounds the walk down the process tree (the harness's tree is
// three deep: harness, serving child or k6, their helpers).
const maxTreeDepth = 6

// treeCPU is the CPU of pid and of its descendants, each with its own
// exited and waited-for children (cutime, cstime): a child that ends
// between two samples moves its time into its parent's count, so the sum
// does not drop.
func treeCPU(pid, depth int) (time.Duration, bool) {
	own, ok := statCPU(pid)
	if !ok || depth >= maxTreeDepth {
		return own, ok
	}
	for _, child := range childrenOf(pid) {
		if c, ok := treeCPU(child, depth+1); ok {
			own += c
		}
	}
	return own, true
}

// statCPU is utime + stime + cutime + cstime of /proc/pid/stat.
func statCPU(pid int) (time.Duration, bool) {
	own, reaped, ok := procTimes(pid)
	return own + reaped, ok
}

// childrenOf lists pid's children, from every thread's children file.
func childrenOf(pid int) []int {
	files, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, w := range bytes.Fields(b) {
			if n, err := strconv.Atoi(string(w)); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
