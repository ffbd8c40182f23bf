package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/middlebench/middlebench/bench/metrics"
	"github.com/middlebench/middlebench/internal/tcptest"
)

// The pods' command lines, as the manifests give them, run here together:
// the merge pod's (listening on loopback instead of 0.0.0.0) and each load
// pod's with its index, the ConfigMap's file and the Service's address
// replaced by what the cluster would provide. The merge holds every
// iteration one process would start (60/s for 1 s) and judges a threshold
// no segment meets alone (each starts 20 of 60: exit 0 all the same). The
// threshold asks for 21 iterations, not 60: a generator busy for a moment
// (a VU allocated mid-run, a loaded machine under -race) drops one, which
// the count of started iterations below sees and the threshold must not.
func TestK8sPodsCommandLinesRunTogether(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	dir := t.TempDir()
	cfgFile := filepath.Join(dir, "options.json")
	const cfg = `{"scenarios": {"s": {"executor": "constant-arrival-rate", "rate": 60, "timeUnit": "1s", "duration": "1s",
  "preAllocatedVUs": 4, "maxVUs": 8}}, "thresholds": {"iterations": ["count>=21"]}}`
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code := runCLI(t, "k8s", "--parallelism", "3", "--config", cfgFile, "--image", "mb:test", "--timeout", "1m", "--keep", "0s", "--", "-q", srv.URL)
	if code != 0 {
		t.Fatalf("k8s: exit %d\n%s", code, out)
	}
	docs := strings.Split(out, "\n---\n")
	var cm corev1.ConfigMap
	var secret corev1.Secret
	var mergeJob, loadJob batchv1.Job
	for i, target := range map[int]any{0: &cm, 1: &secret, 3: &mergeJob, 4: &loadJob} {
		if err := yaml.UnmarshalStrict([]byte(docs[i]), target); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
	}
	// What the cluster provides: the ConfigMap's file, the Secret's token
	// (a file for the merge pod, a variable for the load pods), the
	// Service's address.
	mounted := filepath.Join(dir, "config.json")
	if err := os.WriteFile(mounted, []byte(cm.Data["config.json"]), 0o644); err != nil {
		t.Fatal(err)
	}
	token := secret.StringData["token"]
	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token), 0o600); err != nil || token == "" {
		t.Fatalf("the Secret's token %q: %v", token, err)
	}
	addr := tcptest.FreeAddr(t)
	merged := filepath.Join(dir, "merged.json")
	local := strings.NewReplacer("0.0.0.0:8080", addr, "/etc/middlebench/config.json", mounted,
		"/etc/middlebench-token/token", tokenFile, "$(MIDDLEBENCH_RESULTS_TOKEN)", token,
		"middlebench-merge.default.svc:8080", addr, "/results/merged.json", merged)
	argsOf := func(j batchv1.Job, index string) []string {
		var args []string
		for _, a := range j.Spec.Template.Spec.Containers[0].Args {
			args = append(args, strings.ReplaceAll(local.Replace(a), "$(JOB_COMPLETION_INDEX)", index))
		}
		return args
	}

	var wg sync.WaitGroup
	type ran struct {
		out  string
		code int
	}
	mergeRan := make(chan ran, 1)
	wg.Add(1)
	go func() {
		defer wg.Done()
		out, code, _ := runCLIErr(argsOf(mergeJob, "")...)
		mergeRan <- ran{out, code}
	}()
	loads := make([]ran, *loadJob.Spec.Completions)
	for i := range loads {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, code, _ := runCLIErr(argsOf(loadJob, fmt.Sprint(i))...)
			loads[i] = ran{out, code}
		}()
	}
	wg.Wait()
	for i, r := range loads {
		if r.code != 0 {
			t.Errorf("load pod %d: exit %d\n%s", i, r.code, r.out)
		}
	}
	m := <-mergeRan
	if m.code != 0 || !strings.Contains(m.out, "merged 3 documents: execution segments 0:1") || !strings.Contains(m.out, "✓ 'count>=21'") {
		t.Fatalf("merge pod: exit %d\n%s", m.code, m.out)
	}
	b, err := os.ReadFile(merged)
	if err != nil {
		t.Fatal(err)
	}
	var d metrics.Document
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	started := d.Metrics["iterations"].Values["count"] + d.Metrics["dropped_iterations"].Values["count"]
	if started != 60 {
		t.Errorf("merged: %v iterations started, want 60 (60/s for 1 s)", started)
	}
}
