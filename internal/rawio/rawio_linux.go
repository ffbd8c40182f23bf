package rawio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// Read is read(2); errors are unix.Errno, n is 0 on error.
func Read(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return result(n, e)
}

// Write is write(2); errors are unix.Errno, n is 0 on error.
func Write(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	return result(n, e)
}

// Peek is recvfrom(2) with MSG_PEEK|MSG_DONTWAIT: what the socket holds,
// left in it, without waiting.
func Peek(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall6(unix.SYS_RECVFROM, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), unix.MSG_PEEK|unix.MSG_DONTWAIT, 0, 0)
	return result(n, e)
}

// Splice is splice(2) of n bytes without offsets; flags should hold
// SPLICE_F_NONBLOCK.
func Splice(from, to, n int, flags int) (int, error) {
	m, _, e := unix.RawSyscall6(unix.SYS_SPLICE, uintptr(from), 0, uintptr(to), 0, uintptr(n), uintptr(flags))
	return result(m, e)
}

// Poll is epoll_wait(2) with a zero timeout: the events ready now.
func Poll(ep int, events []unix.EpollEvent) (int, error) {
	if len(events) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(ep), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	return result(n, e)
}

func result(n uintptr, e unix.Errno) (int, error) {
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}
