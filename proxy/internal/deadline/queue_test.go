package deadline

import (
	"testing"
	"time"
)

// TestDeadlineQueue: items come out in the order of their deadlines, only
// once due, whatever the order they were set in; a cleared or moved item
// comes out no more at its old deadline.
func TestDeadlineQueue(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	var q Queue
	var fired []string
	items := map[string]*Item{}
	for _, name := range []string{"a", "b", "c", "d", "e"} {
		items[name] = &Item{Fire: func() { fired = append(fired, name) }}
	}
	q.Set(items["a"], at(10))
	q.Set(items["b"], at(30))
	q.Set(items["c"], at(20)) // out of order: walks back before b
	q.Set(items["d"], at(5))  // to the front
	q.Set(items["e"], at(40))
	items["b"].Clear()
	q.Set(items["e"], at(25)) // moved earlier
	if due, ok := q.Earliest(); !ok || !due.Equal(at(5)) {
		t.Fatalf("earliest %v %v, want %v", due, ok, at(5))
	}
	pop := func(now time.Time) {
		for d := q.Expired(now); d != nil; d = q.Expired(now) {
			d.Fire()
		}
	}
	pop(at(4))
	if len(fired) != 0 {
		t.Fatalf("fired %v before any was due", fired)
	}
	pop(at(20))
	pop(at(100))
	want := []string{"d", "a", "c", "e"}
	if len(fired) != len(want) {
		t.Fatalf("fired %v, want %v", fired, want)
	}
	for i := range want {
		if fired[i] != want[i] {
			t.Fatalf("fired %v, want %v", fired, want)
		}
	}
	if _, ok := q.Earliest(); ok || items["b"].Armed() {
		t.Fatal("the queue is not empty after every item came out or was cleared")
	}
}
