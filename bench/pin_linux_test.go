package bench

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func allowedList(t *testing.T, pid string) string {
	t.Helper()
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Fatal("no Cpus_allowed_list")
	return ""
}

func TestPinning(t *testing.T) {
	cpus := allCPUs()
	if len(cpus) < 2 {
		t.Skip("pinning apart needs two CPUs")
	}
	last := cpus[len(cpus)-1]
	cmd := exec.Command("sleep", "5")
	if err := startPinned(cmd, []int{last}); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	if got := allowedList(t, strconv.Itoa(cmd.Process.Pid)); got != strconv.Itoa(last) {
		t.Errorf("child allowed on %q, want %d", got, last)
	}
	restore, err := pinSelf([]int{cpus[0]})
	if err != nil {
		t.Fatal(err)
	}
	tasks, _ := os.ReadDir("/proc/self/task")
	for _, task := range tasks {
		if got := allowedList(t, "self/task/"+task.Name()); got != strconv.Itoa(cpus[0]) {
			t.Errorf("thread %s allowed on %q, want %d", task.Name(), got, cpus[0])
		}
	}
	if err := restore(); err != nil {
		t.Fatal(err)
	}
	if got := allCPUs(); len(got) != len(cpus) {
		t.Errorf("after restore: CPUs %v, want %v", got, cpus)
	}
}
