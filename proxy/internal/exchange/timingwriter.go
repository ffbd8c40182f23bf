package exchange

import (
	"net/http"
	"strconv"

	"github.com/middlebench/middlebench/internal/timing"
)

// TimingWriter appends the box's Server-Timing entries (the exchange's
// Timings, each described as Desc, the box's name) to the response
// header, after the upstream's own, just before the header is written.
type TimingWriter struct {
	http.ResponseWriter
	Ex   *Exchange
	Desc string
	done bool
}

func (w *TimingWriter) WriteHeader(code int) {
	if !w.done {
		w.done = true
		if len(w.Ex.Timings) > 0 {
			h := w.Header()
			buf := make([]byte, 0, 64)
			if vs := h.Values("Server-Timing"); len(vs) > 0 {
				buf = append(buf, vs[len(vs)-1]...)
			}
			for _, t := range w.Ex.Timings {
				if len(buf) > 0 {
					buf = append(buf, ", "...)
				}
				buf = append(buf, t.Name...)
				buf = append(buf, ";dur="...)
				buf = strconv.AppendFloat(buf, timing.Millis(t.Dur), 'f', 1, 64)
				buf = append(buf, `;desc="`...)
				buf = append(buf, w.Desc...)
				buf = append(buf, '"')
			}
			if vs := h["Server-Timing"]; len(vs) > 0 {
				vs[len(vs)-1] = string(buf)
			} else {
				h.Set("Server-Timing", string(buf))
			}
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *TimingWriter) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach Flush and Hijack.
func (w *TimingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
