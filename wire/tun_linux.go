package wire

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"golang.org/x/sys/unix"
)

// tunDev is a TUN device's fd, read and written with plain system calls
// from the line's own locked threads: a reader that waits in ppoll wakes
// on its thread the moment a packet arrives, where the runtime's poller
// would hand the wake-up to whichever thread polls next (milliseconds
// late when every CPU is busy, and each late arrival leaves the rate's
// time unused).
type tunDev struct {
	fd   int
	stop int          // eventfd: written by shutdown to end a waiting Read
	warm *warmer      // the reader's own (see warmer); made by its first Read
	made bool         // warm was made (or could not be)
	hot  bool         // keep the reader warm (Options.KeepWarm)
	hold *latencyHold // told of each packet; nil: none
	poll *poller      // told of each packet; nil: none
	last atomic.Int64 // the last packet read, UnixNano
}

// keepWarm makes the reader keep warm while packets flow; call it before
// the first Read.
func (d *tunDev) keepWarm() { d.hot = true }

// openTUN creates a TUN device (IFF_TUN: IP packets, IFF_NO_PI: no
// 4-byte header) in the calling thread's namespace.
func openTUN(name string) (*tunDev, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("open /dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("TUNSETIFF %s: %w", name, err)
	}
	stop, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("eventfd: %w", err)
	}
	return &tunDev{fd: fd, stop: stop}, nil
}

// ReadNow returns the next packet without waiting (errNoPacket when none
// is queued); any thread may call it.
func (d *tunDev) ReadNow(p []byte) (int, error) {
	for {
		n, err := unix.Read(d.fd, p)
		switch {
		case err == nil:
			now := time.Now()
			d.last.Store(now.UnixNano())
			if d.hold != nil {
				d.hold.packet(now)
			}
			if d.poll != nil {
				d.poll.packet()
			}
			return n, nil
		case errors.Is(err, unix.EAGAIN):
			return 0, errNoPacket
		case !errors.Is(err, unix.EINTR):
			return 0, fmt.Errorf("read tun: %w", err)
		}
	}
}

// Wait returns when a packet may be queued; after shutdown it returns
// os.ErrClosed. Only the line's reader calls it. Kept warm, it also
// returns every warmEvery while packets flow (see warmer).
func (d *tunDev) Wait() error {
	if d.hot && !d.made {
		d.warm, d.made = newWarmer(), true
	}
	fds := []unix.PollFd{{Fd: int32(d.fd), Events: unix.POLLIN}, {Fd: int32(d.stop), Events: unix.POLLIN}}
	if d.warm != nil {
		fds = append(fds, unix.PollFd{Fd: int32(d.warm.fd), Events: unix.POLLIN})
		d.warm.beforeWait(time.Unix(0, d.last.Load()), time.Now())
	}
	for {
		_, err := unix.Ppoll(fds, nil, nil)
		if err == nil {
			break
		}
		if !errors.Is(err, unix.EINTR) {
			return fmt.Errorf("poll tun: %w", err)
		}
	}
	if fds[1].Revents != 0 {
		return os.ErrClosed
	}
	if d.warm != nil && fds[2].Revents != 0 {
		d.warm.drain()
	}
	return nil
}

// Write sends one packet (a TUN device never blocks a writer: the
// kernel takes the packet or drops it).
func (d *tunDev) Write(p []byte) (int, error) {
	for {
		n, err := unix.Write(d.fd, p)
		if !errors.Is(err, unix.EINTR) {
			return n, err
		}
	}
}

// shutdown ends the current and every later Read.
func (d *tunDev) shutdown() {
	one := [8]byte{1}
	_, _ = unix.Write(d.stop, one[:])
}

// Close closes the fds; no Read or Write may be running.
func (d *tunDev) Close() error {
	err := errors.Join(unix.Close(d.fd), unix.Close(d.stop))
	if d.warm != nil {
		err = errors.Join(err, d.warm.close())
	}
	return err
}
