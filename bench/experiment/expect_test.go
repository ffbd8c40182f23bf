package experiment

import (
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
	}
	for _, tt := range tests {
		err := tt.band.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%+v: %v, want %q", tt.band, err, tt.want)
		}
	}
}
