package bench

import (
	"sync"
	"time"

	"github.com/middlebench/middlebench/bench/record"
)

// loadEvery is how often a run's disturbance is sampled: /proc's counters
// tick at 10 ms, a sweep's steps last seconds.
const loadEvery = 100 * time.Millisecond

// loadMeter samples the machine's counters (see loadSample) while a run
// goes on.
type loadMeter struct {
	cpus []int
	stop chan struct{}
	wg   sync.WaitGroup
	mu   sync.Mutex
	tl   record.LoadTimeline
}

// startLoadMeter samples cpus now and every loadEvery until end.
func startLoadMeter(cpus []int) *loadMeter {
	m := &loadMeter{cpus: cpus, stop: make(chan struct{}), tl: record.LoadTimeline{CPUs: len(cpus)}}
	m.sample()
	m.wg.Add(1)
	go func() {
		defer m.wg.Done()
		t := time.NewTicker(loadEvery)
		defer t.Stop()
		for {
			select {
			case <-m.stop:
				return
			case <-t.C:
				m.sample()
			}
		}
	}()
	return m
}

func (m *loadMeter) sample() {
	s, ok := sampleLoad(m.cpus)
	if !ok {
		return
	}
	m.mu.Lock()
	m.tl.Samples = append(m.tl.Samples, s)
	m.mu.Unlock()
}

// end takes a last sample and returns the timeline (nil where nothing
// could be sampled).
func (m *loadMeter) end() *record.LoadTimeline {
	close(m.stop)
	m.wg.Wait()
	m.sample()
	if len(m.tl.Samples) < 2 {
		return nil
	}
	return &m.tl
}
