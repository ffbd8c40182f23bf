package timing

// ServerView is what the origin saw, as its /_mb/stats reports it: the
// stand-in for an APM screen.
type ServerView struct {
	Requests int64            `json:"requests"`
	InFlight int64            `json:"inFlight"`
	Statuses map[string]int64 `json:"statuses"`
	BytesIn  int64            `json:"bytesIn"`
	BytesOut int64            `json:"bytesOut"`
	WindowMs float64          `json:"windowMs"` // time since start or reset
	Workers  int              `json:"workers,omitempty"`
	// Times in ms: avg, min, med, max, p(90), p(95), p(99), count.
	ServerTime  map[string]float64 `json:"server_time"`            // the work, as Server-Timing app;dur= reports it
	QueueTime   map[string]float64 `json:"queue_time"`             // waiting for a worker slot
	ReadTime    map[string]float64 `json:"read_time,omitempty"`    // reading the request body
	HandlerTime map[string]float64 `json:"handler_time,omitempty"` // queue + read + work + writing the body
	Histograms  map[string]string  `json:"histograms,omitempty"`
}
