package k8s

import (
	"bytes"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	klabels "k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/middlebench/middlebench/bench/load"
)

// A k6 options object, as "k6 inspect" prints it.
const testConfig = `{
  "scenarios": {"steady": {"executor": "constant-arrival-rate", "rate": 400, "timeUnit": "1s",
    "duration": "10s", "preAllocatedVUs": 20, "maxVUs": 50}},
  "thresholds": {"http_req_duration": ["p(95)<500"]}
}
`

func testOptions(n int) Options {
	return Options{
		Name: "mb-test", Namespace: "bench", Image: "registry.example/middlebench:v1", Parallelism: n,
		Config: []byte(testConfig), ConfigFile: "options.json", Separate: true,
		Requests:     corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
		Limits:       corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1"), corev1.ResourceMemory: resource.MustParse("512Mi")},
		NodeSelector: map[string]string{"pool": "load"},
		Env:          map[string]string{"TARGET": "http://api.bench.svc:8080"},
		LoadArgs:     []string{"--tag", "run=ci"},
		Timeout:      30 * time.Minute, Keep: 10 * time.Minute, TTL: time.Hour,
	}
}

// decoded is the output read back strictly: every object in its own type.
type decoded struct {
	cm          corev1.ConfigMap
	secret      corev1.Secret
	svc         corev1.Service
	merge, load batchv1.Job
}

func decodeStrict(t *testing.T, out []byte) decoded {
	t.Helper()
	var d decoded
	docs := strings.Split(string(out), "\n---\n")
	if len(docs) != 5 {
		t.Fatalf("%d documents, want 5 (ConfigMap, Secret, Service, merge Job, load Job)", len(docs))
	}
	targets := []any{&d.cm, &d.secret, &d.svc, &d.merge, &d.load}
	for i, doc := range docs {
		if err := yaml.UnmarshalStrict([]byte(doc), targets[i]); err != nil {
			t.Fatalf("document %d does not decode strictly: %v\n%s", i, err, doc)
		}
	}
	for i, tm := range []metav1.TypeMeta{d.cm.TypeMeta, d.secret.TypeMeta, d.svc.TypeMeta, d.merge.TypeMeta, d.load.TypeMeta} {
		want := [][2]string{{"v1", "ConfigMap"}, {"v1", "Secret"}, {"v1", "Service"}, {"batch/v1", "Job"}, {"batch/v1", "Job"}}[i]
		if tm.APIVersion != want[0] || tm.Kind != want[1] {
			t.Errorf("document %d is %s %s, want %s %s", i, tm.APIVersion, tm.Kind, want[0], want[1])
		}
	}
	return d
}

// argAfter is the value following flag in args.
func argAfter(t *testing.T, args []string, flag string) string {
	t.Helper()
	i := slices.Index(args, flag)
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("no %s in %q", flag, args)
	}
	return args[i+1]
}

func rat(t *testing.T, s string) *big.Rat {
	t.Helper()
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		t.Fatalf("%q is not a number", s)
	}
	return r
}

func TestManifestsDecodeStrictlyAndMeanTheRun(t *testing.T) {
	for _, n := range []int{1, 3, 4, 7} {
		t.Run(fmt.Sprint("N=", n), func(t *testing.T) {
			o := testOptions(n)
			m, err := Build(o)
			if err != nil {
				t.Fatal(err)
			}
			out, err := m.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			d := decodeStrict(t, out)
			checkNames(t, d)
			checkConfigMap(t, d, o)
			checkLoadJob(t, d, o)
			checkMergeJob(t, d, o)
		})
	}
}

func checkNames(t *testing.T, d decoded) {
	for _, om := range []metav1.ObjectMeta{d.cm.ObjectMeta, d.secret.ObjectMeta, d.svc.ObjectMeta, d.merge.ObjectMeta, d.load.ObjectMeta} {
		if errs := validation.IsDNS1123Label(om.Name); len(errs) > 0 {
			t.Errorf("name %q: %v", om.Name, errs)
		}
		if om.Namespace != "bench" {
			t.Errorf("%s: namespace %q, want bench", om.Name, om.Namespace)
		}
		if om.Labels["app.kubernetes.io/instance"] != "mb-test" {
			t.Errorf("%s: labels %v, want the run's instance label", om.Name, om.Labels)
		}
	}
	if errs := validation.IsDNS1035Label(d.svc.Name); len(errs) > 0 {
		t.Errorf("Service name %q: %v", d.svc.Name, errs)
	}
}

func checkConfigMap(t *testing.T, d decoded, o Options) {
	if len(d.cm.Data) != 1 || d.cm.Data["config.json"] != testConfig {
		t.Errorf("ConfigMap data %q, want the input config verbatim under config.json", d.cm.Data)
	}
	vol := d.load.Spec.Template.Spec.Volumes
	mount := d.load.Spec.Template.Spec.Containers[0].VolumeMounts
	if len(vol) != 1 || vol[0].ConfigMap == nil || vol[0].ConfigMap.Name != d.cm.Name ||
		len(mount) != 1 || mount[0].Name != vol[0].Name || !mount[0].ReadOnly {
		t.Fatalf("load pods: volumes %+v mounts %+v, want the ConfigMap %s mounted read-only", vol, mount, d.cm.Name)
	}
	if got, want := argAfter(t, d.load.Spec.Template.Spec.Containers[0].Args, "--config"), mount[0].MountPath+"/config.json"; got != want {
		t.Errorf("load --config %s, want %s (the mounted key)", got, want)
	}
}

func checkLoadJob(t *testing.T, d decoded, o Options) {
	s := d.load.Spec
	n := int32(o.Parallelism)
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion ||
		s.Completions == nil || *s.Completions != n || s.Parallelism == nil || *s.Parallelism != n {
		t.Errorf("load Job: completionMode %v completions %v parallelism %v, want Indexed, %d, %d",
			s.CompletionMode, s.Completions, s.Parallelism, n, n)
	}
	if s.BackoffLimitPerIndex == nil || *s.BackoffLimitPerIndex != 0 || s.BackoffLimit != nil {
		t.Errorf("load Job: backoffLimitPerIndex %v backoffLimit %v, want each index run once", s.BackoffLimitPerIndex, s.BackoffLimit)
	}
	if s.TTLSecondsAfterFinished == nil || *s.TTLSecondsAfterFinished != 3600 || s.ActiveDeadlineSeconds == nil || *s.ActiveDeadlineSeconds != 1800 {
		t.Errorf("load Job: ttl %v deadline %v, want 3600 and 1800", s.TTLSecondsAfterFinished, s.ActiveDeadlineSeconds)
	}
	ps := s.Template.Spec
	if ps.RestartPolicy != corev1.RestartPolicyNever || len(ps.Containers) != 1 {
		t.Fatalf("load pods: restartPolicy %s, %d containers; want Never (a pod failure policy needs it), 1", ps.RestartPolicy, len(ps.Containers))
	}
	c := ps.Containers[0]
	if c.Image != o.Image || !slices.Equal(c.Command, []string{Binary}) || c.Args[0] != "load" {
		t.Errorf("load container: image %s command %q args %q", c.Image, c.Command, c.Args)
	}
	// The index reaches the arguments through the pod's own env var.
	if len(c.Env) < 1 || c.Env[0].Name != "JOB_COMPLETION_INDEX" || c.Env[0].ValueFrom == nil || c.Env[0].ValueFrom.FieldRef == nil ||
		c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
		t.Fatalf("load container env %+v: want JOB_COMPLETION_INDEX from the completion-index annotation first", c.Env)
	}
	if argAfter(t, c.Args, "--execution-segment-index") != "$(JOB_COMPLETION_INDEX)" {
		t.Errorf("load args %q: the segment index is not $(JOB_COMPLETION_INDEX)", c.Args)
	}
	if !slices.Contains(c.Args, "--no-threshold-exit") {
		t.Errorf("load args %q: a segment crossing a threshold would fail its index though the merge may pass", c.Args)
	}
	if len(c.Env) != 3 || c.Env[1].Name != "TARGET" || c.Env[1].Value != "http://api.bench.svc:8080" {
		t.Errorf("load env %+v: want the given TARGET after the index, then the token", c.Env)
	}
	if !slices.Equal(c.Args[len(c.Args)-2:], []string{"--tag", "run=ci"}) {
		t.Errorf("load args %q: want the extra arguments last", c.Args)
	}
	checkSegmentsCover(t, argAfter(t, c.Args, "--execution-segment-sequence"), o.Parallelism)
	checkResultsURL(t, d, argAfter(t, c.Args, "--results-url"))
	if got, want := argAfter(t, c.Args, "--start-url"), strings.Replace(argAfter(t, c.Args, "--results-url"), "/results/", "/start/", 1); got != want {
		t.Errorf("--start-url %s, want the merge pod's gate %s", got, want)
	}
	checkPod(t, "load", ps, o)
	// One pod per node: the anti-affinity selects the load pods, only them.
	aa := ps.Affinity.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
	if len(aa) != 1 || aa[0].TopologyKey != "kubernetes.io/hostname" {
		t.Fatalf("anti-affinity %+v: want one term on kubernetes.io/hostname", aa)
	}
	sel, err := metav1.LabelSelectorAsSelector(aa[0].LabelSelector)
	if err != nil {
		t.Fatal(err)
	}
	if !sel.Matches(klabels.Set(s.Template.Labels)) || sel.Matches(klabels.Set(d.merge.Spec.Template.Labels)) {
		t.Errorf("anti-affinity selector %s: must match the load pods %v and not the merge pod %v", sel, s.Template.Labels, d.merge.Spec.Template.Labels)
	}
	rules := s.PodFailurePolicy.Rules
	if len(rules) != 2 || rules[0].Action != batchv1.PodFailurePolicyActionIgnore || rules[1].Action != batchv1.PodFailurePolicyActionFailIndex ||
		rules[1].OnExitCodes == nil || *rules[1].OnExitCodes.ContainerName != c.Name {
		t.Errorf("pod failure policy %+v: want disruptions ignored (rerun), any other failure failing its index only", rules)
	}
}

// The N segments the pods derive from their indexes (as load does, with
// load.SegmentAt) tile 0..1 exactly: each starts where the last ended.
func checkSegmentsCover(t *testing.T, seq string, n int) {
	at := big.NewRat(0, 1)
	for i := 0; i < n; i++ {
		seg, err := load.SegmentAt(seq, i)
		if err != nil {
			t.Fatalf("pod %d: %v", i, err)
		}
		from, to, _ := strings.Cut(seg, ":")
		if rat(t, from).Cmp(at) != 0 || rat(t, to).Cmp(at) <= 0 {
			t.Fatalf("pod %d runs %s, want it to start at %s", i, seg, at.RatString())
		}
		at = rat(t, to)
	}
	if at.Cmp(big.NewRat(1, 1)) != 0 {
		t.Errorf("the %d segments of %s end at %s, want 1", n, seq, at.RatString())
	}
	if _, err := load.SegmentAt(seq, n); err == nil {
		t.Errorf("sequence %s has more than %d segments: a segment no pod runs", seq, n)
	}
}

// The load pods send to the Service, whose port and selector lead to the
// merge pod's receiving port, which expects N documents.
func checkResultsURL(t *testing.T, d decoded, url string) {
	want := fmt.Sprintf("http://mb:$(MIDDLEBENCH_RESULTS_TOKEN)@%s.bench.svc:%d/results/$(JOB_COMPLETION_INDEX)", d.svc.Name, d.svc.Spec.Ports[0].Port)
	if url != want {
		t.Errorf("--results-url %s, want %s", url, want)
	}
	sel := klabels.SelectorFromSet(d.svc.Spec.Selector)
	if !sel.Matches(klabels.Set(d.merge.Spec.Template.Labels)) || sel.Matches(klabels.Set(d.load.Spec.Template.Labels)) {
		t.Errorf("Service selector %s: must match the merge pod %v and not the load pods %v", sel, d.merge.Spec.Template.Labels, d.load.Spec.Template.Labels)
	}
	mc := d.merge.Spec.Template.Spec.Containers[0]
	if len(mc.Ports) != 1 || d.svc.Spec.Ports[0].TargetPort.StrVal != mc.Ports[0].Name ||
		argAfter(t, mc.Args, "--listen") != fmt.Sprintf("0.0.0.0:%d", mc.Ports[0].ContainerPort) {
		t.Errorf("Service port %+v, merge ports %+v, --listen %s: not the same port", d.svc.Spec.Ports, mc.Ports, argAfter(t, mc.Args, "--listen"))
	}
	if mc.ReadinessProbe == nil || mc.ReadinessProbe.HTTPGet == nil || mc.ReadinessProbe.HTTPGet.Path != "/healthz" {
		t.Errorf("merge readiness probe %+v, want GET /healthz", mc.ReadinessProbe)
	}
}

func checkMergeJob(t *testing.T, d decoded, o Options) {
	s := d.merge.Spec
	if s.BackoffLimit == nil || *s.BackoffLimit != 0 || s.CompletionMode != nil || s.TTLSecondsAfterFinished == nil || *s.TTLSecondsAfterFinished != 3600 {
		t.Errorf("merge Job: backoffLimit %v completionMode %v ttl %v; want 0 (a new pod would lose the documents), NonIndexed, 3600",
			s.BackoffLimit, s.CompletionMode, s.TTLSecondsAfterFinished)
	}
	c := s.Template.Spec.Containers[0]
	if c.Args[0] != "merge" || argAfter(t, c.Args, "--expect") != fmt.Sprint(o.Parallelism) ||
		argAfter(t, c.Args, "--wait") != "30m0s" || argAfter(t, c.Args, "--keep") != "10m0s" {
		t.Errorf("merge args %q: want --expect %d --wait 30m0s --keep 10m0s", c.Args, o.Parallelism)
	}
	// The test's 10 s with k6's default gracefulStop of 30 s, plus five
	// minutes (the send, a disrupted index's new pod): silent past that, the
	// load pod failed.
	if due := argAfter(t, c.Args, "--results-due"); due != "5m40s" {
		t.Errorf("merge --results-due %s, want 5m40s (10s + gracefulStop 30s + 5m)", due)
	}
	// It outlives the wait and the keeping.
	if s.ActiveDeadlineSeconds == nil || *s.ActiveDeadlineSeconds <= int64((o.Timeout+o.Keep).Seconds()) {
		t.Errorf("merge Job deadline %v, want above --timeout + --keep", s.ActiveDeadlineSeconds)
	}
	out := argAfter(t, c.Args, "--output")
	if len(c.VolumeMounts) != 2 || !strings.HasPrefix(out, c.VolumeMounts[0].MountPath+"/") ||
		s.Template.Spec.Volumes[0].EmptyDir == nil {
		t.Errorf("merge --output %s, mounts %+v: want it on a writable emptyDir (the root is read-only)", out, c.VolumeMounts)
	}
	checkPod(t, "merge", s.Template.Spec, o)
}

func checkPod(t *testing.T, what string, ps corev1.PodSpec, o Options) {
	c := ps.Containers[0]
	sc := c.SecurityContext
	if sc == nil || !*sc.RunAsNonRoot || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation || ps.SecurityContext.RunAsUser == nil || *ps.SecurityContext.RunAsUser == 0 {
		t.Errorf("%s: security context %+v / %+v, want non-root, read-only root, no escalation", what, sc, ps.SecurityContext)
	}
	if !c.Resources.Requests.Cpu().Equal(resource.MustParse("500m")) || !c.Resources.Limits.Memory().Equal(resource.MustParse("512Mi")) {
		t.Errorf("%s: resources %+v, want the given requests and limits", what, c.Resources)
	}
	if ps.NodeSelector["pool"] != "load" || ps.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("%s: node selector %v restart %s", what, ps.NodeSelector, ps.RestartPolicy)
	}
}

// The strict decoding the test relies on does refuse what the types lack.
func TestStrictDecodingRefusesUnknownFields(t *testing.T) {
	var j batchv1.Job
	if err := yaml.UnmarshalStrict([]byte("apiVersion: batch/v1\nkind: Job\nspec:\n  completionMod: Indexed\n"), &j); err == nil {
		t.Fatal("a misspelt field decoded")
	}
}

func TestWithoutSeparateOrResources(t *testing.T) {
	o := testOptions(2)
	o.Separate, o.Requests, o.Limits, o.TTL, o.ConfigFile = false, nil, nil, 0, "test.yaml"
	m, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	ps := m.Load.Spec.Template.Spec
	if ps.Affinity != nil || len(ps.Containers[0].Resources.Requests) > 0 || m.Load.Spec.TTLSecondsAfterFinished != nil {
		t.Errorf("affinity %+v resources %+v ttl %v: want none of them", ps.Affinity, ps.Containers[0].Resources, m.Load.Spec.TTLSecondsAfterFinished)
	}
	if _, ok := m.Config.Data["config.yaml"]; !ok {
		t.Errorf("ConfigMap keys %v: a YAML file goes under config.yaml", m.Config.Data)
	}
}

func TestUnevenSequence(t *testing.T) {
	o := testOptions(3)
	o.Sequence = "0,1/2,3/4,1"
	m, err := Build(o)
	if err != nil {
		t.Fatal(err)
	}
	args := m.Load.Spec.Template.Spec.Containers[0].Args
	if got := argAfter(t, args, "--execution-segment-sequence"); got != o.Sequence {
		t.Errorf("sequence %s, want the given %s", got, o.Sequence)
	}
	checkSegmentsCover(t, o.Sequence, 3)
}

func TestBuildRefuses(t *testing.T) {
	for _, c := range []struct {
		edit func(*Options)
		says string
	}{
		{func(o *Options) { o.Name = "Bad_Name" }, "--name"},
		{func(o *Options) { o.Name = "1abc" }, "--name"},
		{func(o *Options) { o.Name = strings.Repeat("a", 60) }, "--name"},
		{func(o *Options) { o.Namespace = "Bench" }, "--namespace"},
		{func(o *Options) { o.Image = "" }, "--image"},
		{func(o *Options) { o.Parallelism = 0 }, "--parallelism"},
		{func(o *Options) { o.Sequence = "0,1/2,1" }, "has 2 segments, --parallelism is 4"},
		{func(o *Options) { o.Sequence = "0,x,1" }, "--execution-segment-sequence"},
		{func(o *Options) { o.Config = []byte("vus: 2\nbogus: 1\n") }, "--config options.json"},
		{func(o *Options) { o.Timeout = 0 }, "--timeout"},
		{func(o *Options) { o.Env = map[string]string{"1X": "y"} }, "--env"},
		{func(o *Options) { o.Env = map[string]string{"JOB_COMPLETION_INDEX": "0"} }, "--env"},
		{func(o *Options) { o.NodeSelector = map[string]string{"pool": "a b"} }, "--node-selector"},
		{func(o *Options) { o.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")} }, "above --limits"},
		{func(o *Options) { o.Limits = corev1.ResourceList{"gpu": resource.MustParse("1")} }, "--limits gpu"},
	} {
		o := testOptions(4)
		c.edit(&o)
		if _, err := Build(o); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: err %v, want one saying %q", c.says, err, c.says)
		}
	}
}

// A directory gets one file per object, each the same YAML as stdout's
// document, in the order to apply them.
func TestWriteDirectory(t *testing.T) {
	m, err := Build(testOptions(3))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	files, err := m.Write(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	if _, err := m.Write("-", &stdout); err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(stdout.String(), "---\n")
	if len(files) != 5 || !slices.IsSorted(files) {
		t.Fatalf("files %q: want 5, sorted in the order to apply", files)
	}
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != docs[i] {
			t.Errorf("%s differs from stdout's document %d", f, i)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 5 {
		t.Errorf("%d entries in the directory, want the 5 files only (no temporaries)", len(entries))
	}
}

// TestTheTokenGuardsTheMerge: the run's token is in a Secret of its own
// (a new one per run); the merge pod reads it from a file and listens
// beyond loopback only with it; the load pods take it from the Secret into
// their environment and send it as the password of --results-url.
func TestTheTokenGuardsTheMerge(t *testing.T) {
	build := func() decoded {
		m, err := Build(testOptions(2))
		if err != nil {
			t.Fatal(err)
		}
		out, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return decodeStrict(t, out)
	}
	d := build()
	tok := d.secret.StringData["token"]
	if len(tok) != 64 || strings.Trim(tok, "0123456789abcdef") != "" {
		t.Fatalf("Secret %+v: want a token of 64 hex digits", d.secret)
	}
	if d2 := build(); d2.secret.StringData["token"] == tok {
		t.Errorf("two runs share the token %s", tok)
	}
	mc := d.merge.Spec.Template.Spec.Containers[0]
	file := argAfter(t, mc.Args, "--token-file")
	if !slices.Contains(mc.Args, "--allow-remote") {
		t.Errorf("merge args %q: want --allow-remote (the pod listens on 0.0.0.0)", mc.Args)
	}
	var mounted bool
	for _, vm := range mc.VolumeMounts {
		for _, v := range d.merge.Spec.Template.Spec.Volumes {
			if v.Name == vm.Name && v.Secret != nil && v.Secret.SecretName == d.secret.Name && vm.ReadOnly &&
				file == vm.MountPath+"/token" {
				mounted = true
			}
		}
	}
	if !mounted {
		t.Errorf("merge pod: --token-file %s is not the Secret %s mounted read-only", file, d.secret.Name)
	}
	lc := d.load.Spec.Template.Spec.Containers[0]
	var fromSecret bool
	for _, e := range lc.Env {
		if e.Name == "MIDDLEBENCH_RESULTS_TOKEN" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil &&
			e.ValueFrom.SecretKeyRef.Name == d.secret.Name && e.ValueFrom.SecretKeyRef.Key == "token" {
			fromSecret = true
		}
	}
	if !fromSecret || strings.Contains(strings.Join(lc.Args, " "), tok) {
		t.Errorf("load pod env %+v args %q: want the token from the Secret, never written in the Job", lc.Env, lc.Args)
	}
}
