package bench

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// pinSelf binds every thread of this process to cpus (threads made later
// inherit the mask of the thread that makes them, so the whole process
// stays there) and returns a function that restores the mask it had.
func pinSelf(cpus []int) (restore func() error, err error) {
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return nil, fmt.Errorf("pin: %w", err)
	}
	if err := setAllThreads(cpuSet(cpus)); err != nil {
		_ = setAllThreads(old)
		return nil, fmt.Errorf("pin to CPUs %v: %w", cpus, err)
	}
	return func() error { return setAllThreads(old) }, nil
}

func setAllThreads(set unix.CPUSet) error {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return fmt.Errorf("pin: %w", err)
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
			return fmt.Errorf("thread %d: %w", tid, err)
		}
	}
	return nil
}

// startPinned starts cmd bound to cpus: the child inherits the affinity of
// the thread that forks it, so that thread is bound for the moment of Start.
func startPinned(cmd *exec.Cmd, cpus []int) error {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var old unix.CPUSet
	if err := unix.SchedGetaffinity(0, &old); err != nil {
		return fmt.Errorf("pin: %w", err)
	}
	set := cpuSet(cpus)
	if err := unix.SchedSetaffinity(0, &set); err != nil {
		return fmt.Errorf("pin child to CPUs %v: %w", cpus, err)
	}
	err := cmd.Start()
	if rerr := unix.SchedSetaffinity(0, &old); rerr != nil && err == nil {
		err = fmt.Errorf("unpin: %w", rerr)
	}
	return err
}

func cpuSet(cpus []int) unix.CPUSet {
	var set unix.CPUSet
	for _, c := range cpus {
		set.Set(c)
	}
	return set
}

// allCPUs lists the CPUs this thread may run on.
func allCPUs() []int {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil || set.Count() == 0 {
		cpus := make([]int, runtime.NumCPU())
		for i := range cpus {
			cpus[i] = i
		}
		return cpus
	}
	var cpus []int
	for c := 0; c < 1024 && len(cpus) < set.Count(); c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

const canPin = true
