//go:build !linux

package precise

func newWaker() waker { return &timerWaker{interrupts: make(chan struct{}, 1)} }
