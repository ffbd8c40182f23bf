package fakeserver

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Admin paths are served beside the origin and are not counted in its view.
const (
	pathStats   = "/_mb/stats"
	pathReset   = "/_mb/reset"
	pathHealth  = "/_mb/health"
	pathMetrics = "/metrics"
)

func isAdminPath(p string) bool {
	return strings.HasPrefix(p, "/_mb/") || p == pathMetrics
}

// adminHandler serves the admin paths. mutating: the admin listener's,
// which also resets; the served address's refuses that (403), so that
// nothing reaching the origin — a box, a student — can reset its view.
func (s *Server) adminHandler(mutating bool) http.Handler {
	reg := prometheus.NewRegistry()
	reg.MustRegister(&collector{s: s})
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+pathStats, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		_ = enc.Encode(s.Stats())
	})
	mux.HandleFunc("POST "+pathReset, func(w http.ResponseWriter, r *http.Request) {
		if !mutating {
			http.Error(w, "POST "+pathReset+" is served on the admin listener only (adminListen, --admin-listen), not on the address clients and boxes reach", http.StatusForbidden)
			return
		}
		s.Reset()
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET "+pathHealth, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}` + "\n"))
	})
	mux.Handle("GET "+pathMetrics, promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	mux.HandleFunc("/_mb/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "unknown admin path: use GET "+pathStats+", POST "+pathReset+", GET "+pathHealth+" or GET "+pathMetrics, http.StatusNotFound)
	})
	return mux
}
