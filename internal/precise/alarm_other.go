//go:build !linux

package precise

func newAlarm() alarm { return newTimerAlarm() }
