package experiment

import (
	"math"
	"strings"
	"testing"
)

func TestEvalExpr(t *testing.T) {
	tests := []struct {
		in      string
		want    float64
		wantErr string
	}{
		{in: "300ms + 30ms", want: 330},
		{in: "2 * 150ms + 120ms", want: 420},
		{in: "1.5s", want: 1500},
		{in: "0.445", want: 0.445},
		{in: "-5ms", want: -5},
		{in: "500ms - 50ms", want: 450},
		{in: "8 * 1024 / 4096", want: 2},
		{in: "1e-3", want: 0.001},
		{in: "250µs", want: 0.25},
		{in: "", wantErr: "empty"},
		{in: "300ms +", wantErr: "ends with an operator"},
		{in: "soon", wantErr: "neither a number nor a duration"},
		{in: "${delay} + 1ms", wantErr: "not defined in vars"},
		{in: "(1 + 2)", wantErr: "parentheses"},
		{in: "1 / 0", wantErr: "division by zero"},
	}
	for _, tt := range tests {
		got, err := EvalExpr(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: err %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%q = %v (%v), want %v", tt.in, got, err, tt.want)
		}
	}
}
