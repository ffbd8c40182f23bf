//go:build !linux

package bench

import "github.com/middlebench/middlebench/bench/record"

// sampleLoad: no per-CPU accounting here, so no run is judged busy.
func sampleLoad([]int) (record.LoadSample, bool) { return record.LoadSample{}, false }
