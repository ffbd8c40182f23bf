// Package k8s writes the manifests of a distributed middlebench run on an
// existing Kubernetes cluster, k6-operator's shape without an operator: a
// ConfigMap with the load config, an Indexed Job whose N pods each run one
// execution segment (the one at JOB_COMPLETION_INDEX in the sequence), and
// a merge Job behind a Service that receives the N results documents over
// HTTP, merges them exactly (bench/merge) and exits as k6 does (99 when a
// threshold fails on the merge). The pods share no volume, so any cluster
// will do: ReadWriteMany storage is not needed.
//
// Every object is built from the Kubernetes API's own Go types and
// marshalled, so the manifests are valid by construction.
package k8s

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/middlebench/middlebench/bench/load"
)

// Options describe one distributed run.
type Options struct {
	Name        string // prefix of every object's name; the run's app.kubernetes.io/instance label
	Namespace   string
	Image       string // holds /usr/local/bin/middlebench (see the repository's Dockerfile)
	Parallelism int    // N: pods, execution segments, documents to merge
	// Sequence is the execution segment sequence, k6's form; "" is N even
	// segments. With one, Parallelism must be its number of segments.
	Sequence string

	Config     []byte // the load config (load --config: middlebench's or k6's options, YAML or JSON), verbatim
	ConfigFile string // its file name, for the ConfigMap's key (config.yaml or config.json)

	Separate       bool                // at most one load pod per node (required pod anti-affinity)
	Requests       corev1.ResourceList // each load pod's (and the merge pod's) requests
	Limits         corev1.ResourceList
	NodeSelector   map[string]string
	ServiceAccount string
	Env            map[string]string // environment of the load pods (${NAME} in the config, k6's __ENV)
	LoadArgs       []string          // more flags for every "middlebench load" (e.g. --tag, the URL)

	Timeout time.Duration // the whole run's bound: each Job's activeDeadlineSeconds, merge --wait
	Keep    time.Duration // merge --keep: how long the merge pod serves GET /merged
	TTL     time.Duration // ttlSecondsAfterFinished of both Jobs; 0: kept until deleted

	// Token is the shared secret the load pods' PUTs carry to the merge pod
	// (in the run's Secret); "" draws a new one for the run.
	Token string
}

// Binary is where the image holds middlebench.
const Binary = "/usr/local/bin/middlebench"

// Port is the merge pod's receiving port (and the Service's).
const Port = 8080

// Mounts of the pods.
const (
	configDir  = "/etc/middlebench"
	tokenDir   = "/etc/middlebench-token"
	resultsDir = "/results"
)

// names of the objects of one run.
type names struct{ config, secret, service, merge, load string }

func namesOf(name string) names {
	return names{config: name + "-config", secret: name + "-token", service: name + "-merge", merge: name + "-merge", load: name + "-load"}
}

// check validates the options; errors name the flag.
func (o *Options) check() error {
	if errs := validation.IsDNS1123Label(o.Namespace); len(errs) > 0 {
		return fmt.Errorf("--namespace %q: %s", o.Namespace, strings.Join(errs, "; "))
	}
	n := namesOf(o.Name)
	for _, name := range []string{n.config, n.service, n.load} {
		// DNS-1035 (a Service's rule) is the strictest of the objects' rules;
		// the Job's pods carry its name in a 63-character label.
		if errs := validation.IsDNS1035Label(name); len(errs) > 0 {
			return fmt.Errorf("--name %q: %s: %s", o.Name, name, strings.Join(errs, "; "))
		}
	}
	if o.Image == "" {
		return fmt.Errorf("--image: give the image holding %s (see the Dockerfile)", Binary)
	}
	if o.Parallelism < 1 {
		return fmt.Errorf("--parallelism %d: want the number of load pods, at least 1", o.Parallelism)
	}
	if o.Timeout <= 0 {
		return fmt.Errorf("--timeout %s: want the run's bound, above 0", o.Timeout)
	}
	if o.Keep < 0 || o.TTL < 0 {
		return fmt.Errorf("--keep %s, --ttl %s: want 0 or more", o.Keep, o.TTL)
	}
	if _, err := load.DecodeConfig(bytes.NewReader(o.Config)); err != nil {
		return fmt.Errorf("--config %s: %w", o.ConfigFile, err)
	}
	for k := range o.Env {
		if errs := validation.IsEnvVarName(k); len(errs) > 0 || k == indexEnv {
			return fmt.Errorf("--env %q: not a variable a pod may set (%s)", k, strings.Join(errs, "; "))
		}
	}
	for k, v := range o.NodeSelector {
		if errs := append(validation.IsQualifiedName(k), validation.IsValidLabelValue(v)...); len(errs) > 0 {
			return fmt.Errorf("--node-selector %s=%s: %s", k, v, strings.Join(errs, "; "))
		}
	}
	if o.ServiceAccount != "" {
		if errs := validation.IsDNS1123Subdomain(o.ServiceAccount); len(errs) > 0 {
			return fmt.Errorf("--service-account %q: %s", o.ServiceAccount, strings.Join(errs, "; "))
		}
	}
	for q, list := range map[string]corev1.ResourceList{"--requests": o.Requests, "--limits": o.Limits} {
		for r := range list {
			if r != corev1.ResourceCPU && r != corev1.ResourceMemory && r != corev1.ResourceEphemeralStorage {
				return fmt.Errorf("%s %s: want cpu, memory or ephemeral-storage", q, r)
			}
		}
	}
	for r, lim := range o.Limits {
		if req, ok := o.Requests[r]; ok && req.Cmp(lim) > 0 {
			return fmt.Errorf("--requests %s=%s is above --limits %s=%s", r, req.String(), r, lim.String())
		}
	}
	return nil
}

// sequence is the run's execution segment sequence: the given one (with
// as many segments as pods) or N even segments.
func (o *Options) sequence() (string, error) {
	if o.Sequence == "" {
		parts := []string{"0"}
		for i := 1; i < o.Parallelism; i++ {
			parts = append(parts, fmt.Sprintf("%d/%d", i, o.Parallelism))
		}
		return strings.Join(append(parts, "1"), ","), nil
	}
	n := 0
	for ; ; n++ {
		if _, err := load.SegmentAt(o.Sequence, n); err != nil {
			if n == 0 {
				return "", fmt.Errorf("--execution-segment-sequence: %w", err)
			}
			break
		}
	}
	if n != o.Parallelism {
		return "", fmt.Errorf("--execution-segment-sequence %s has %d segments, --parallelism is %d: one pod runs one segment", o.Sequence, n, o.Parallelism)
	}
	return o.Sequence, nil
}

// configKey is the ConfigMap's key: the load reads YAML and JSON alike,
// the extension only tells a reader which.
func (o *Options) configKey() string {
	if strings.EqualFold(filepath.Ext(o.ConfigFile), ".json") {
		return "config.json"
	}
	return "config.yaml"
}

// dueMargin is what a load pod gets beyond its schedule: its VUs' start
// after the gate and the PUT of its document take seconds; the rest is for
// an index the Job runs again after a disruption (eviction, drain), whose
// new pod must be scheduled and ask at the gate within it.
const dueMargin = 5 * time.Minute

// scheduleFlags are the load flags that change how long a run lasts.
var scheduleFlags = []string{"--config", "-c", "--executor", "--vus", "-u", "--duration", "-d", "--iterations", "-i",
	"--stage", "-s", "--rate", "--time-unit", "--graceful-stop", "--graceful-ramp-down"}

// resultsDue is merge --results-due: the config's longest run (with its
// graceful stop) plus dueMargin, so that a load pod that died after the
// start gate fails the merge then rather than at --timeout. It is 0 (off)
// when flags after "--" change the schedule or the config cannot say its
// length (the load pods report that error themselves).
func (o *Options) resultsDue() time.Duration {
	for _, a := range o.LoadArgs {
		for _, f := range scheduleFlags {
			if a == f || strings.HasPrefix(a, f+"=") || (len(f) == 2 && !strings.HasPrefix(a, "--") && strings.HasPrefix(a, f)) {
				return 0
			}
		}
	}
	cfg, err := load.DecodeConfig(bytes.NewReader(o.Config))
	if err != nil {
		return 0
	}
	if cfg.URL == "" && len(cfg.Requests) == 0 {
		cfg.URL = "http://schedule.invalid/" // the target comes after "--": the schedule does not depend on it
	}
	_, _, longest, err := load.Describe(cfg)
	if err != nil || longest <= 0 {
		return 0
	}
	return longest + dueMargin
}
