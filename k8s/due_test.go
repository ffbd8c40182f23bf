package k8s

import (
	"slices"
	"testing"
	"time"
)

// The merge's bound on a started segment is the config's longest run plus
// five minutes, and none when the flags after "--" change the schedule (the
// config no longer says how long the run lasts).
func TestResultsDue(t *testing.T) {
	for _, c := range []struct {
		name   string
		config string
		args   []string
		want   time.Duration
	}{
		{"k6 options, URL after --", testConfig, []string{"--tag", "run=ci", "http://api:8080/"}, 40*time.Second + 5*time.Minute},
		{"a request timeout is not the schedule", testConfig, []string{"--timeout", "5s"}, 40*time.Second + 5*time.Minute},
		{"middlebench's scenario, its own gracefulStop", "url: http://api:8080/\nexecutor: constant-vus\nvus: 4\nduration: 2m\ngracefulStop: 5s\n", nil,
			2*time.Minute + 5*time.Second + 5*time.Minute},
		{"ramping arrivals", "url: http://api:8080/\nexecutor: ramping-arrival-rate\npreAllocatedVUs: 5\nstages: [{duration: 20s, target: 50}, {duration: 40s, target: 0}]\ngracefulStop: 0s\n", nil,
			6 * time.Minute},
		{"--duration after --", testConfig, []string{"--duration", "1h"}, 0},
		{"--duration= after --", testConfig, []string{"--duration=1h"}, 0},
		{"-d glued", testConfig, []string{"-d1h"}, 0},
		{"--stage", testConfig, []string{"--stage", "1m:10"}, 0},
		{"--graceful-stop", testConfig, []string{"--graceful-stop", "5m"}, 0},
	} {
		o := testOptions(2)
		o.Config, o.LoadArgs = []byte(c.config), c.args
		m, err := Build(o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		args := m.Merge.Spec.Template.Spec.Containers[0].Args
		i := slices.Index(args, "--results-due")
		switch {
		case c.want == 0 && i >= 0:
			t.Errorf("%s: merge args %q carry --results-due, want none", c.name, args)
		case c.want > 0 && (i < 0 || args[i+1] != c.want.String()):
			t.Errorf("%s: merge args %q, want --results-due %s", c.name, args, c.want)
		}
	}
}
