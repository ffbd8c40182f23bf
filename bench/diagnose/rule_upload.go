package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/units"
)

// CodeUploadLimited names rule 4: the upload sets the pace.
const CodeUploadLimited = "upload-limited"

// uploadThresholds: rule 4.
type uploadThresholds struct {
	Share Ratio      `yaml:"share"` // sending ≥ this share of duration
	Body  units.Size `yaml:"body"`  // or requests this large on average
}

// uploadLimited is rule 4: sending is high — the uplink (the generator's
// above all), the request body's size, a device inspecting bodies. k6
// counts sending until the body is written into the socket; what sits in
// the OS buffers drains during waiting, so a large upload inflates waiting
// too and must not be read as a slow server or a slow path (E2: 8 MB at
// 4 MB/s each, sending 1,190 ms and waiting 716 ms; on Linux the send
// buffer swallows a 4 MiB body and ~85 % of its time lands in waiting).
// The rule fires on sending's share of duration, or on large bodies whose
// time outside the server is high; it silences path-latency and
// server-slow for that time.
func uploadLimited(f *facts) *Finding {
	w, c := f.w, thresholdsOf[uploadThresholds](f.cfg)
	if !f.all.Duration.Present() {
		return nil
	}
	send, dur := f.all.Sending.Avg, f.all.Duration.Avg
	body := f.bytesPer(w.DataSent)
	drain := f.all.Waiting.Avg // without the server's time, all of waiting may be the drain
	if f.hasServer {
		drain = max(f.outside, 0)
	}
	bySending := send >= f.floor && send >= float64(c.Share)*dur
	byBody := body >= float64(c.Body) && send+drain >= f.floor && send+drain >= float64(c.Share)*dur
	if !bySending && !byBody {
		return nil
	}
	conf := ConfidenceMedium
	if bySending && byBody {
		conf = ConfidenceHigh
	}
	fd := &Finding{Code: CodeUploadLimited, Severity: SeverityWarning, Confidence: conf, ExplainsMs: send + drain}
	fd.claim(lineSending, send).claim(lineOutside, drain)
	fd.add("sending_avg_ms", send).add("sending_p95_ms", f.all.Sending.Tail()).add("waiting_avg_ms", f.all.Waiting.Avg)
	if f.hasServer {
		fd.add("server_time_avg_ms", f.srv.Avg)
	}
	read := 0.0
	if f.w.Server != nil && f.w.Server.Read.Present() {
		read = f.w.Server.Read.Avg
		fd.add("server_read_avg_ms", read)
	}
	rate := 0.0
	if body > 0 {
		fd.add("bytes_per_request", body)
		if t := (send + drain) / 1000; t > 0 {
			rate = body / t
			fd.add("upload_rate_Bps", rate)
		}
	}
	if f.obs.UplinkBps > 0 && w.Seconds > 0 {
		fd.add("uplink_use", float64(w.DataSent)/w.Seconds/f.obs.UplinkBps)
	}
	fd.Summary = fmt.Sprintf("Sending takes %s of a %s request", metrics.FormatMs(send), metrics.FormatMs(dur))
	if body > 0 {
		fd.Summary += fmt.Sprintf(" carrying %s", fmtBytes(body))
	}
	fd.Summary += fmt.Sprintf(", and %s of waiting is not the server's: the upload fills sending, and what sat in the OS buffers drains during waiting", metrics.FormatMs(drain))
	if rate > 0 {
		fd.Summary += fmt.Sprintf(" (%s/s per request)", fmtBytes(rate))
	}
	fd.Summary += ". Read it as the uplink or a body-inspecting device, not as a slow server."
	if read > 0 {
		fd.Summary += fmt.Sprintf(" The server spent %s reading each body: its read rate, or the link feeding it, sets the pace.", metrics.FormatMs(read))
	}
	fd.Suspect = []string{
		"the uplink, above all the generator's own",
		"the request body's size",
		"a device inspecting request bodies, or the server's read rate",
	}
	fd.Next = []string{
		"compare data_sent per second with the uplink's capacity on both ends",
		"run the same upload straight at the server (rule 11): if sending and waiting shrink, the path limits it",
		"check body inspection and size limits on the WAF / proxy",
	}
	return fd
}
