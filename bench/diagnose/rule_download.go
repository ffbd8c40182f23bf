package diagnose

import (
	"fmt"

	"github.com/middlebench/middlebench/bench/metrics"
)

// CodeDownloadLimited names rule 7: the download sets the pace.
const CodeDownloadLimited = "download-limited"

// downloadThresholds: rule 7.
type downloadThresholds struct {
	Share   Ratio `yaml:"share"`    // receiving ≥ this share of duration
	Growth  Ratio `yaml:"growth"`   // sweep: receiving grows this much …
	Flat    Ratio `yaml:"flat"`     // … while waiting grows less than this
	LinkUse Ratio `yaml:"link_use"` // data received ≥ this share of the downlink
}

// downloadLimited is rule 7: receiving is high while waiting stays flat —
// downlink bandwidth, response size, or the generator's capacity to read.
// The server has already sent its response, so its own time shows nothing;
// a download cap inflates receiving, not waiting (E4: 256 KB responses on a
// 10,240 KB/s egress: at 32 VUs TPS stays at ~40 and receiving reaches
// 695 ms while waiting and server time stay at 101 ms). Compare data
// received per second with both ends' link capacity.
func downloadLimited(f *facts) *Finding {
	recv, dur := f.all.Receiving.Avg, f.all.Duration.Avg
	if recv < f.floor || recv < float64(thresholdsOf[downloadThresholds](f.cfg).Share)*dur {
		return nil
	}
	return downloadFinding(f, ConfidenceMedium)
}

func downloadFinding(f *facts, conf Confidence) *Finding {
	w := f.w
	recv := f.all.Receiving.Avg
	fd := &Finding{Code: CodeDownloadLimited, Severity: SeverityWarning, Confidence: conf, ExplainsMs: recv}
	fd.claim(lineReceiving, recv)
	// A cap that releases the body in slices delays its first byte too
	// (toxiproxy's bandwidth toxic sends rate × 100 ms every 100 ms): that
	// lands in waiting. A delay the path adds to every request shows in
	// the fastest one (waiting's min over the server's); what the average
	// adds beyond that floor varies with the cap's state and is the cap's,
	// up to the time the rest of the body took.
	if wt := f.served.Waiting; f.hasServer && f.outside > 0 && wt.Min > 0 && f.srv.Min > 0 {
		first := min(max(f.outside-max(wt.Min-f.srv.Min, 0), 0), recv)
		if first >= 1 {
			fd.claim(lineOutside, first)
			fd.add("first_byte_delay_ms", first).add("path_floor_ms", max(wt.Min-f.srv.Min, 0))
		}
	}
	fd.add("receiving_avg_ms", recv).add("receiving_p95_ms", f.all.Receiving.Tail()).add("waiting_avg_ms", f.all.Waiting.Avg)
	if f.hasServer {
		fd.add("server_time_avg_ms", f.srv.Avg)
	}
	body := f.bytesPer(w.DataReceived)
	rate := 0.0
	if body > 0 {
		fd.add("bytes_per_response", body)
	}
	if w.Seconds > 0 && w.DataReceived > 0 {
		rate = float64(w.DataReceived) / w.Seconds
		fd.add("download_rate_Bps", rate)
	}
	if f.obs.DownlinkBps > 0 && rate > 0 {
		use := rate / f.obs.DownlinkBps
		fd.add("downlink_use", use)
		if use >= float64(thresholdsOf[downloadThresholds](f.cfg).LinkUse) {
			fd.Confidence = ConfidenceHigh
		}
	}
	if w.RPS() > 0 {
		fd.add("rps", w.RPS())
	}
	fd.Summary = fmt.Sprintf("Receiving takes %s of %s while waiting stays at %s", metrics.FormatMs(recv), metrics.FormatMs(f.all.Duration.Avg), metrics.FormatMs(f.all.Waiting.Avg))
	if rate > 0 {
		fd.Summary += fmt.Sprintf("; %s responses arrive at %s/s in all", fmtBytes(body), fmtBytes(rate))
	}
	fd.Summary += ": the line (or the generator's reading) is full, not the server — its time shows nothing of it."
	fd.Suspect = []string{
		"downlink bandwidth: the server's egress, a load balancer or the generator's NIC",
		"response size (is compression on?)",
		"the generator's capacity to read",
	}
	fd.Next = []string{
		"compare data_received per second with the link capacity of both ends",
		"send Accept-Encoding (compression) or shrink the responses",
		"check the generator's network and CPU while it receives",
	}
	return fd
}

// downloadSweep: across steps receiving grows (×growth) while waiting
// stays flat (×flat at most).
func downloadSweep(obs *Observation, cfg *Config) *Finding {
	fs := stepFacts(obs, cfg, false)
	if len(fs) < 2 {
		return nil
	}
	c := thresholdsOf[downloadThresholds](cfg)
	first, last := fs[0], fs[len(fs)-1]
	var names []string
	for _, f := range fs[1:] {
		if f.all.Receiving.Avg >= float64(c.Growth)*first.all.Receiving.Avg && f.all.Receiving.Avg >= f.floor {
			names = append(names, f.name)
		}
	}
	if len(names) == 0 || last.all.Receiving.Avg < float64(c.Growth)*first.all.Receiving.Avg || last.all.Receiving.Avg < last.floor ||
		last.all.Waiting.Avg > float64(c.Flat)*first.all.Waiting.Avg {
		return nil
	}
	fd := downloadFinding(last, ConfidenceHigh)
	fd.add("receiving_avg_first_ms", first.all.Receiving.Avg).add("waiting_avg_first_ms", first.all.Waiting.Avg)
	fd.Summary = fmt.Sprintf("Across the steps receiving grows from %s to %s while waiting stays at %s → %s. ",
		metrics.FormatMs(first.all.Receiving.Avg), metrics.FormatMs(last.all.Receiving.Avg), metrics.FormatMs(first.all.Waiting.Avg), metrics.FormatMs(last.all.Waiting.Avg)) + fd.Summary
	fd.Steps = names
	return fd
}
