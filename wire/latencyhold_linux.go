package wire

import (
	"encoding/binary"
	"io"
	"os"
)

// cpuLatencyDevice takes a process's CPU wake-up latency request: the
// 32-bit limit in µs written to it holds while the file stays open.
const cpuLatencyDevice = "/dev/cpu_dma_latency"

// openCPULatency requests that no CPU take longer than 0 µs to wake: idle
// CPUs poll. Only root may.
func openCPULatency() (io.Closer, error) {
	f, err := os.OpenFile(cpuLatencyDevice, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(binary.NativeEndian.AppendUint32(nil, 0)); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
