// Package deadline keeps an event loop's deadlines without a timer each:
// per kind of deadline one queue in due order, the loop arming one timer
// for the earliest of all.
//
//	Set(d, due) ─→ [head … d … tail]  (due order; a late add walks back)
//	loop wakes ─→ Expired(now) ─→ d.Fire()   Earliest() ─→ the loop's timer
package deadline

import "time"

// Queue holds what waits for one kind of deadline of an event
// loop (a client's idle time, the next hop's first answer byte …), each
// due a fixed span after it was added. Added in the order of their
// deadlines they stay in that order, so the earliest is at the front:
// adding, moving and removing cost a link each, where a heap would cost
// log n swaps and a timer per item a system call. An item added out of
// order (a span counted from an earlier moment) walks back to its place.
type Queue struct {
	head, tail *Item
}

// Item is one item's place in a queue; Fire is what its owner does
// when it passes (set once, when the owner is made).
type Item struct {
	prev, next *Item
	q          *Queue
	due        time.Time
	Fire       func()
}

// Set puts d in q, due at due, out of any queue it was in.
func (q *Queue) Set(d *Item, due time.Time) {
	d.Clear()
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

// Clear takes d out of its queue, if it is in one.
func (d *Item) Clear() {
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

// In reports whether d is in q.
func (d *Item) In(q *Queue) bool { return d.q == q }

// Armed reports whether d is in a queue.
func (d *Item) Armed() bool { return d.q != nil }

// Expired takes the front item out if it is due by now.
func (q *Queue) Expired(now time.Time) *Item {
	d := q.head
	if d == nil || d.due.After(now) {
		return nil
	}
	d.Clear()
	return d
}

// Earliest is the front item's deadline (ok false: the queue is empty).
func (q *Queue) Earliest() (time.Time, bool) {
	if q.head == nil {
		return time.Time{}, false
	}
	return q.head.due, true
}
