package proxy

import "time"

// deadlineQueue holds what waits for one kind of deadline of an event
// loop (a client's idle time, the next hop's first answer byte …), each
// due a fixed span after it was added. Added in the order of their
// deadlines they stay in that order, so the earliest is at the front:
// adding, moving and removing cost a link each, where a heap would cost
// log n swaps and a timer per item a system call. An item added out of
// order (a span counted from an earlier moment) walks back to its place.
type deadlineQueue struct {
	head, tail *deadline
}

// deadline is one item's place in a queue; fire is what its owner does
// when it passes (set once, when the owner is made).
type deadline struct {
	prev, next *deadline
	q          *deadlineQueue
	due        time.Time
	fire       func()
}

// set puts d in q, due at due, out of any queue it was in.
func (q *deadlineQueue) set(d *deadline, due time.Time) {
	d.clear()
	d.q, d.due = q, due
	at := q.tail
	for at != nil && at.due.After(due) {
		at = at.prev
	}
	// d goes after at (at the front when at is nil).
	d.prev = at
	if at != nil {
		d.next, at.next = at.next, d
	} else {
		d.next, q.head = q.head, d
	}
	if d.next != nil {
		d.next.prev = d
	} else {
		q.tail = d
	}
}

// clear takes d out of its queue, if it is in one.
func (d *deadline) clear() {
	q := d.q
	if q == nil {
		return
	}
	if d.prev != nil {
		d.prev.next = d.next
	} else {
		q.head = d.next
	}
	if d.next != nil {
		d.next.prev = d.prev
	} else {
		q.tail = d.prev
	}
	d.prev, d.next, d.q = nil, nil, nil
}

// armed reports whether d is in a queue.
func (d *deadline) armed() bool { return d.q != nil }

// expired takes the front item out if it is due by now.
func (q *deadlineQueue) expired(now time.Time) *deadline {
	d := q.head
	if d == nil || d.due.After(now) {
		return nil
	}
	d.clear()
	return d
}

// earliest is the front item's deadline (ok false: the queue is empty).
func (q *deadlineQueue) earliest() (time.Time, bool) {
	if q.head == nil {
		return time.Time{}, false
	}
	return q.head.due, true
}
