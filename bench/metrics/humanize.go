package metrics

import (
	"math"
	"strconv"
)

// The number formats of k6's end-of-test summary (internal/js/summary.js).

// fixedNoTrailingZeros is JavaScript's parseFloat(v.toFixed(prec)).toString().
func fixedNoTrailingZeros(v float64, prec int) string {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'f', prec, 64), 64)
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// fixedTrunc truncates to prec decimals, then drops trailing zeros.
func fixedTrunc(v float64, prec int) string {
	m := math.Pow(10, float64(prec))
	return fixedNoTrailingZeros(math.Trunc(m*v)/m, prec)
}

// HumanizeDuration prints milliseconds as k6 does: 946ns, 26.41µs,
// 51.37ms, 1.5s, 1m30s; with a time unit (s, ms, us) always in that unit
// with two decimals.
func HumanizeDuration(ms float64, unit string) string {
	switch unit {
	case "s":
		return strconv.FormatFloat(ms*0.001, 'f', 2, 64) + "s"
	case "ms":
		return strconv.FormatFloat(ms, 'f', 2, 64) + "ms"
	case "us":
		return strconv.FormatFloat(ms*1000, 'f', 2, 64) + "µs"
	}
	switch {
	case ms == 0:
		return "0s"
	case ms < 0.001:
		return strconv.FormatInt(int64(math.Trunc(ms*1e6)), 10) + "ns"
	case ms < 1:
		return fixedTrunc(ms*1000, 2) + "µs"
	case ms < 1000:
		return fixedTrunc(ms, 2) + "ms"
	}
	prec := 2
	if ms > 60000 {
		prec = 0
	}
	s := fixedTrunc(math.Mod(ms, 60000)/1000, prec) + "s"
	rem := int64(math.Trunc(ms / 60000))
	if rem < 1 {
		return s
	}
	s = strconv.FormatInt(rem%60, 10) + "m" + s
	if rem /= 60; rem < 1 {
		return s
	}
	return strconv.FormatInt(rem, 10) + "h" + s
}

// NoValue stands where the input has no figure: never a 0 that was not
// measured.
const NoValue = "—"

// FormatMs prints a time in ms as HumanizeDuration does, with a minus
// sign (−) before a negative time and NoValue for no value (NaN): the report
// shows no time outside the server when fast rejections would make it
// negative (E5).
func FormatMs(ms float64) string {
	switch {
	case math.IsNaN(ms):
		return NoValue
	case ms < 0:
		return "−" + HumanizeDuration(-ms, "")
	}
	return HumanizeDuration(ms, "")
}

// HumanizeBytes prints a byte count as k6 does: 39 kB, 7.8 kB, 9 B.
func HumanizeBytes(b float64) string {
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	if b < 10 {
		return strconv.FormatFloat(b, 'f', -1, 64) + " B"
	}
	e := int(math.Floor(math.Log(b) / math.Log(1000)))
	e = min(e, len(units)-1)
	v := math.Floor(b/math.Pow(1000, float64(e))*10+0.5) / 10
	prec := 0
	if v < 10 {
		prec = 1
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + " " + units[e]
}

// humanizeValue formats one value of metric m as k6's summary does.
func humanizeValue(v float64, m Metric, unit string) string {
	if m.Type == TypeRate {
		return strconv.FormatFloat(math.Trunc(v*100*100)/100, 'f', 2, 64) + "%"
	}
	switch m.Contains {
	case ContainsData:
		return HumanizeBytes(v)
	case ContainsTime:
		return HumanizeDuration(v, unit)
	}
	return fixedNoTrailingZeros(v, 6)
}
