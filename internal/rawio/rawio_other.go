//go:build unix && !linux

package rawio

import "syscall"

// Read is read(2) through the runtime's system-call entry.
func Read(fd int, p []byte) (int, error) { return syscall.Read(fd, p) }

// Write is write(2) through the runtime's system-call entry.
func Write(fd int, p []byte) (int, error) { return syscall.Write(fd, p) }

// Peek is recvfrom(2) with MSG_PEEK|MSG_DONTWAIT through the runtime's
// system-call entry.
func Peek(fd int, p []byte) (int, error) {
	n, _, err := syscall.Recvfrom(fd, p, syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	return n, err
}
