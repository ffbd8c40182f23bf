//go:build !linux

package bench

// cpuShare: no per-CPU accounting here.
type cpuShare struct{}

type shareSample struct{}

func sampleShare(int) (shareSample, bool)    { return shareSample{}, false }
func shareBetween(_, _ shareSample) cpuShare { return cpuShare{} }
func (cpuShare) String() string              { return "" }

func (cpuShare) percents() (others, stolen float64) { return 0, 0 }
