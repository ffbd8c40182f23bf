package console

import (
	"fmt"
	"strings"

	"github.com/middlebench/middlebench/bench/load"
	"github.com/middlebench/middlebench/bench/metrics"
)

// StageFlag is --stage, repeatable: "30s:100" appends one stage.
type StageFlag struct{ Stages *[]load.Stage }

func (f StageFlag) String() string {
	if f.Stages == nil {
		return ""
	}
	parts := make([]string, len(*f.Stages))
	for i, s := range *f.Stages {
		parts[i] = s.String()
	}
	return strings.Join(parts, ",")
}

// Set implements pflag.Value; "10s:5,20s:10" adds two stages too.
func (f StageFlag) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		s, err := load.ParseStage(part)
		if err != nil {
			return err
		}
		*f.Stages = append(*f.Stages, s)
	}
	return nil
}

// Type implements pflag.Value.
func (StageFlag) Type() string { return "duration:target" }

// HeaderFlag is -H/--header, repeatable: "Name: value".
type HeaderFlag struct{ Headers *map[string]string }

func (f HeaderFlag) String() string { return "" }

// Set implements pflag.Value.
func (f HeaderFlag) Set(v string) error {
	k, val, ok := strings.Cut(v, ":")
	k = strings.TrimSpace(k)
	if !ok || k == "" || strings.ContainsAny(k, " \t") {
		return fmt.Errorf("header %q: want \"Name: value\"", v)
	}
	if *f.Headers == nil {
		*f.Headers = map[string]string{}
	}
	(*f.Headers)[k] = strings.TrimSpace(val)
	return nil
}

// Type implements pflag.Value.
func (HeaderFlag) Type() string { return "header" }

// ThresholdFlag is --threshold, repeatable: "http_req_failed:rate<0.01".
type ThresholdFlag struct {
	Thresholds *map[string][]load.ThresholdExpr
}

func (f ThresholdFlag) String() string { return "" }

// Set implements pflag.Value.
func (f ThresholdFlag) Set(v string) error {
	t, err := metrics.ParseThresholdFlag(v)
	if err != nil {
		return err
	}
	if *f.Thresholds == nil {
		*f.Thresholds = map[string][]load.ThresholdExpr{}
	}
	(*f.Thresholds)[t.Metric] = append((*f.Thresholds)[t.Metric], load.ThresholdExpr{Threshold: t.Source})
	return nil
}

// Type implements pflag.Value.
func (ThresholdFlag) Type() string { return "metric:expr" }
