package bench

import (
	"os/exec"
	"testing"
	"time"
)

// A child's CPU is the experiment's own: counted while the child runs and,
// once it has ended and been waited for, through this process's count of
// its children, so that it never reads as other processes'.
func TestTreeCPUCountsChildren(t *testing.T) {
	cpus := allCPUs()
	s0, ok := sampleLoad(cpus)
	if !ok {
		t.Skip("no /proc/stat here")
	}
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sh: %v", err)
	}
	pid := cmd.Process.Pid
	deadline := time.Now().Add(30 * time.Second)
	var child time.Duration
	for time.Now().Before(deadline) {
		if c, ok := statCPU(pid); ok && c >= 100*time.Millisecond {
			child = c
			break
		}
		time.Sleep(5 * time.Millisecond) // polling a condition with a deadline
	}
	if child == 0 {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		t.Fatal("the child used no 100 ms of CPU within 30 s")
	}
	s1, _ := sampleLoad(cpus)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	total := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	s2, _ := sampleLoad(cpus)
	const tick = 10 * time.Millisecond // /proc's unit
	if got := s1.Ours - s0.Ours; got < child-tick {
		t.Errorf("while the child ran: ours grew %v, the child alone had used %v", got, child)
	}
	if got := s2.Ours - s0.Ours; got < total-2*tick {
		t.Errorf("after the child ended: ours grew %v, the child used %v", got, total)
	}
	if s2.Ours < s1.Ours || s2.Busy < s1.Busy {
		t.Errorf("counts went back: %+v then %+v", s1, s2)
	}
}
