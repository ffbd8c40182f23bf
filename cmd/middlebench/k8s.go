package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/middlebench/middlebench/k8s"
)

func newK8sCmd() *cobra.Command {
	var (
		o                  k8s.Options
		configFile, output string
		requests, limits   map[string]string
		env                []string
	)
	cmd := &cobra.Command{
		Use:   "k8s --parallelism N --config FILE --image IMAGE [-- LOAD FLAGS...]",
		Short: "Write the Kubernetes manifests of a run split over N pods, merged exactly",
		Long: `k8s writes the manifests of a distributed run on an existing cluster (what
the k6-operator's TestRun does, without an operator):

  NAME-config   ConfigMap: the load config, verbatim (what "load --config"
                reads: middlebench's scenario or k6's options, YAML or JSON)
  NAME-merge    Service and Job: one pod running "merge --listen", which
                receives the N results documents over HTTP, merges them
                (HDR histograms: exact percentiles), prints k6's summary and
                the findings, serves GET /merged for --keep, and exits 99
                when a threshold fails on the merge
  NAME-load     Indexed Job, completions = parallelism = N: pod i runs
                "load --execution-segment-index i" of the sequence (N even
                segments, or --execution-segment-sequence), i taken from
                JOB_COMPLETION_INDEX, waits at the merge pod's start gate
                until all N are up (so they start together), and PUTs its
                document to the Service

It needs Kubernetes 1.29 or later (backoffLimitPerIndex). No shared volume
is needed (no ReadWriteMany): the documents travel over the
cluster network. Each index runs once (backoffLimitPerIndex 0) unless its pod
was disrupted; a failed segment does not stop the others. Pods run as
non-root on a read-only root. The image must hold a static middlebench at
` + k8s.Binary + ` (the repository's Dockerfile builds one).

Flags after "--" are given to every "middlebench load" (the URL, --tag,
--insecure-skip-tls-verify, …). The objects are built from the Kubernetes
API's Go types; -o DIR writes one file per object (kubectl apply -f DIR),
-o - (the default) writes them all to stdout.`,
		Example: `  # 4 pods, one per node, each a quarter of the test
  middlebench k8s --parallelism 4 --separate --config options.json \
      --image registry.example/middlebench:v1 --namespace bench \
      --requests cpu=1,memory=256Mi --limits cpu=2,memory=512Mi \
      -e TARGET=http://api.bench.svc:8080 | kubectl apply -f -
  kubectl -n bench wait --for=condition=complete --timeout=1h job/middlebench-merge
  kubectl -n bench logs job/middlebench-merge          # the merged summary and findings
  kubectl -n bench port-forward svc/middlebench-merge 24080:8080 &
  curl -s 127.0.0.1:24080/merged > merged.json         # within --keep

  # uneven segments, a URL and a tag for every pod, the manifests into a directory
  middlebench k8s --parallelism 3 --execution-segment-sequence 0,1/2,3/4,1 \
      --config test.yaml --image mb:v1 -o run/ -- --tag run=ci http://api:8080/`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.Config, err = os.ReadFile(configFile); err != nil {
				return fmt.Errorf("--config: %w", err)
			}
			o.ConfigFile = filepath.Base(configFile)
			if o.Requests, err = resources("--requests", requests); err != nil {
				return err
			}
			if o.Limits, err = resources("--limits", limits); err != nil {
				return err
			}
			if o.Env, err = pairs("-e/--env", env, true); err != nil {
				return err
			}
			if dash := cmd.ArgsLenAtDash(); dash >= 0 {
				o.LoadArgs = args[dash:]
			} else if len(args) > 0 {
				return fmt.Errorf("unexpected %q: flags for the load pods go after --", args[0])
			}
			m, err := k8s.Build(o)
			if err != nil {
				return err
			}
			files, err := m.Write(output, cmd.OutOrStdout())
			for _, f := range files {
				fmt.Fprintln(cmd.ErrOrStderr(), "wrote", f)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Name, "name", "middlebench", "prefix of the objects' names and the run's app.kubernetes.io/instance label")
	f.StringVarP(&o.Namespace, "namespace", "n", "default", "namespace of every object")
	f.StringVar(&o.Image, "image", "", "image holding "+k8s.Binary+" (required)")
	f.IntVar(&o.Parallelism, "parallelism", 0, "load pods, each one execution segment (required)")
	f.StringVar(&o.Sequence, "execution-segment-sequence", "", "the segments, k6's form, as many as pods (default: N even segments)")
	f.StringVarP(&configFile, "config", "c", "", "the load config, as load --config reads it (required)")
	f.BoolVar(&o.Separate, "separate", false, "at most one load pod per node (pod anti-affinity)")
	f.StringToStringVar(&requests, "requests", nil, "each pod's resource requests, e.g. cpu=500m,memory=256Mi")
	f.StringToStringVar(&limits, "limits", nil, "each pod's resource limits, e.g. cpu=1,memory=512Mi")
	f.StringToStringVar(&o.NodeSelector, "node-selector", nil, "schedule the pods on nodes with these labels, e.g. pool=load")
	f.StringVar(&o.ServiceAccount, "service-account", "", "the pods' service account (default: the namespace's)")
	f.StringArrayVarP(&env, "env", "e", nil, "NAME=VALUE in the load pods' environment (${NAME} in the config, k6's __ENV); repeatable")
	f.DurationVar(&o.Timeout, "timeout", time.Hour, "bound of the whole run: the Jobs' activeDeadlineSeconds, how long the merge waits")
	f.DurationVar(&o.Keep, "keep", 10*time.Minute, "how long the merge pod serves GET /merged after merging")
	f.DurationVar(&o.TTL, "ttl", 0, "delete the Jobs and their pods this long after they finish (ttlSecondsAfterFinished; default: kept)")
	f.StringVarP(&output, "output", "o", "-", "directory for one file per object, or - for stdout")
	for _, req := range []string{"parallelism", "config", "image"} {
		_ = cmd.MarkFlagRequired(req)
	}
	return cmd
}

// resources reads cpu=500m,memory=256Mi into a resource list.
func resources(flag string, given map[string]string) (corev1.ResourceList, error) {
	if len(given) == 0 {
		return nil, nil
	}
	out := corev1.ResourceList{}
	for k, v := range given {
		q, err := resource.ParseQuantity(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%s %s=%s: %w", flag, k, v, err)
		}
		out[corev1.ResourceName(k)] = q
	}
	return out, nil
}
