//go:build !linux

package rawio

import "syscall"

// Read is read(2) through the runtime's system-call entry.
func Read(fd int, p []byte) (int, error) { return syscall.Read(fd, p) }

// Write is write(2) through the runtime's system-call entry.
func Write(fd int, p []byte) (int, error) { return syscall.Write(fd, p) }
