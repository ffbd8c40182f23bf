package experiment

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestBandValidate(t *testing.T) {
	tests := []struct {
		band Band
		want string
	}{
		{Band{Min: "1"}, "metric is required"},
		{Band{Metric: "m"}, "give min and/or max"},
		{Band{Metric: "m", Min: "1", Equals: "2"}, "alternatives"},
		{Band{Metric: "m", Near: "x"}, "near needs within"},
		{Band{Metric: "m", Equals: "1", Within: "2%"}, "within goes with near"},
		{Band{Metric: "m", Min: "1", Tolerance: "2"}, "tolerance goes with equals"},
		{Band{Metric: "m", Max: "fast"}, "neither a number nor a duration"},
		{Band{Metric: "m", Near: "x", Within: "-3%"}, "non-negative"},
		{Band{Metric: "m", Max: "2", Plus: "1ms"}, "plus goes with near"},
		{Band{Metric: "m", Near: "x", Within: "1ms", Plus: "two"}, "plus:"},
	}
	for _, tt := range tests {
		err := tt.band.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.band, err, tt.want)
		}
	}
}

func TestBandRefs(t *testing.T) {
	tests := []struct {
		band Band
		want []string
	}{
		{Band{Metric: "m", Min: "@{server server_time avg} + 5ms", Max: "2 * @{step first server_time p(95)}"}, []string{"server server_time avg", "step first server_time p(95)"}},
		{Band{Metric: "m", Equals: "@{derived fixedWindowPassed}", Tolerance: "2"}, []string{"derived fixedWindowPassed"}},
		{Band{Metric: "m", Near: "no delay", Within: "10%"}, nil},
		{Band{Metric: "m", Min: "300ms", Max: "300ms + 30ms"}, nil},
	}
	for _, tt := range tests {
		if got := tt.band.Refs(); !slices.Equal(got, tt.want) {
			t.Errorf("%+v: refs %q, want %q", tt.band, got, tt.want)
		}
	}
}

func TestWithRefs(t *testing.T) {
	run := map[string]float64{"server requests": 1200, "step first http_req_duration p(95)": 12.5}
	lookup := func(ref string) (float64, error) {
		v, ok := run[ref]
		if !ok {
			return 0, fmt.Errorf("no metric %q", ref)
		}
		return v, nil
	}
	tests := []struct {
		expr, want, wantErr string
	}{
		{"@{server requests} + 1", "1200 + 1", ""},
		{"2 * @{ step first http_req_duration p(95) }", "2 * 12.5", ""},
		{"300ms", "300ms", ""},
		{"@{missing} + @{other}", "", `no metric "missing"`},
	}
	for _, tt := range tests {
		got, err := WithRefs(tt.expr, lookup)
		switch {
		case tt.wantErr != "" && (err == nil || err.Error() != tt.wantErr):
			t.Errorf("%q: error %v, want %q", tt.expr, err, tt.wantErr)
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("%q: %q, %v, want %q", tt.expr, got, err, tt.want)
		}
	}
}

func TestMargin(t *testing.T) {
	tests := []struct {
		margin string
		ref    float64
		want   float64
	}{
		{"10%", 50, 5},
		{"10%", -50, 5},
		{"5ms", 1000, 5},
		{"1s", 0, 1000},
		{"2", 7, 2},
	}
	for _, tt := range tests {
		if got := Margin(tt.margin, tt.ref); got != tt.want {
			t.Errorf("Margin(%q, %v) = %v, want %v", tt.margin, tt.ref, got, tt.want)
		}
	}
}
