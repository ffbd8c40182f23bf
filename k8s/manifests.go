package k8s

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Manifests are the objects of one run, in the order to apply them: the
// receiver is up before the load pods have results to send.
type Manifests struct {
	Config  *corev1.ConfigMap
	Secret  *corev1.Secret // the run's token: the merge pod takes PUTs carrying it only
	Service *corev1.Service
	Merge   *batchv1.Job
	Load    *batchv1.Job
}

// indexEnv is the variable the Job controller sets to a pod's completion
// index; the pods declare it from the annotation themselves, so that
// $(JOB_COMPLETION_INDEX) in the arguments expands on every cluster.
const (
	indexEnv        = "JOB_COMPLETION_INDEX"
	indexAnnotation = "batch.kubernetes.io/job-completion-index"
)

// The token's key in the Secret and the load pods' variable holding it.
const (
	tokenKey = "token"
	tokenEnv = "MIDDLEBENCH_RESULTS_TOKEN"
)

// newToken draws a run's token: 32 random bytes, in hex (safe in a URL).
func newToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("the run's token: %w", err)
	}
	return hex.EncodeToString(b[:]), nil
}

// Labels of the objects: the run (instance) and the part (component).
const (
	labelName      = "app.kubernetes.io/name"
	labelInstance  = "app.kubernetes.io/instance"
	labelComponent = "app.kubernetes.io/component"
	componentLoad  = "load"
	componentMerge = "merge"
)

func labels(o *Options, component string) map[string]string {
	l := map[string]string{labelName: "middlebench", labelInstance: o.Name}
	if component != "" {
		l[labelComponent] = component
	}
	return l
}

// Build makes the run's objects.
func Build(o Options) (*Manifests, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	seq, err := o.sequence()
	if err != nil {
		return nil, err
	}
	if o.Token == "" {
		if o.Token, err = newToken(); err != nil {
			return nil, err
		}
	}
	n := namesOf(o.Name)
	meta := func(name, component string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: labels(&o, component)}
	}
	m := &Manifests{
		Config: &corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: meta(n.config, ""),
			Data:       map[string]string{o.configKey(): string(o.Config)},
		},
		Secret: &corev1.Secret{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
			ObjectMeta: meta(n.secret, ""),
			Type:       corev1.SecretTypeOpaque,
			StringData: map[string]string{tokenKey: o.Token},
		},
		Service: &corev1.Service{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Service"},
			ObjectMeta: meta(n.service, componentMerge),
			Spec: corev1.ServiceSpec{
				Selector: labels(&o, componentMerge),
				Ports: []corev1.ServicePort{{Name: "results", Port: Port, Protocol: corev1.ProtocolTCP,
					TargetPort: intstr.FromString("results")}},
			},
		},
	}
	m.Merge = mergeJob(&o, n, meta(n.merge, componentMerge))
	m.Load = loadJob(&o, n, seq, meta(n.load, componentLoad))
	return m, nil
}

// The merge Job: one pod receiving the N documents (merge --listen), never
// restarted (a new pod would have lost what it received); its exit status
// is the run's verdict (99: a threshold failed on the merge). A load pod
// that dies after the start gate fails it within the run's length
// (--results-due), not at --timeout.
func mergeJob(o *Options, n names, meta metav1.ObjectMeta) *batchv1.Job {
	c := container(o, componentMerge, []string{
		// The pod's address beyond loopback, guarded by the run's token.
		"merge", "--listen", fmt.Sprintf("0.0.0.0:%d", Port), "--allow-remote", "--token-file", tokenDir + "/" + tokenKey,
		"--expect", strconv.Itoa(o.Parallelism),
		"--wait", o.Timeout.String(), "--keep", o.Keep.String(), "--output", resultsDir + "/merged.json",
	})
	if due := o.resultsDue(); due > 0 {
		c.Args = append(c.Args, "--results-due", due.String())
	}
	c.Ports = []corev1.ContainerPort{{Name: "results", ContainerPort: Port, Protocol: corev1.ProtocolTCP}}
	c.ReadinessProbe = &corev1.Probe{ProbeHandler: corev1.ProbeHandler{
		HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromString("results")}}, PeriodSeconds: 2}
	c.VolumeMounts = []corev1.VolumeMount{{Name: "results", MountPath: resultsDir}, {Name: "token", MountPath: tokenDir, ReadOnly: true}}
	spec := podSpec(o, c)
	spec.Volumes = []corev1.Volume{{Name: "results", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
		{Name: "token", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: n.secret}}}}
	// It waits for the loads (Timeout), then serves the merge (Keep).
	deadline := o.Timeout + o.Keep + time.Minute
	return job(o, meta, batchv1.JobSpec{
		BackoffLimit:          ptr.To[int32](0),
		ActiveDeadlineSeconds: ptr.To(int64(deadline.Seconds())),
		Template:              corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: meta.Labels}, Spec: spec},
	})
}

// The load Job: N pods, each the segment at its completion index. An index
// is run once (backoffLimitPerIndex 0: a failed segment does not stop the
// others, and none runs twice), except after a disruption (an eviction, a
// drained node), when the receiver's replacing by index makes a rerun safe.
func loadJob(o *Options, n names, seq string, meta metav1.ObjectMeta) *batchv1.Job {
	ref := "$(" + indexEnv + ")"
	// The token, from the Secret into the pod's environment, goes as the
	// password of the URLs' user (net/http sends it as basic auth).
	base := fmt.Sprintf("http://mb:$(%s)@%s.%s.svc:%d", tokenEnv, n.service, o.Namespace, Port)
	args := []string{
		"load", "--config", configDir + "/" + o.configKey(),
		"--execution-segment-sequence", seq, "--execution-segment-index", ref,
		// The segments start together, when every pod is up (the gate).
		"--start-url", fmt.Sprintf("%s/start/%s", base, ref),
		"--results-url", fmt.Sprintf("%s/results/%s", base, ref),
		// A segment's thresholds see a part of the test: the merge judges.
		"--no-threshold-exit",
	}
	c := container(o, componentLoad, append(args, o.LoadArgs...))
	c.Env = []corev1.EnvVar{{Name: indexEnv, ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + indexAnnotation + "']"}}}}
	for _, k := range slices.Sorted(maps.Keys(o.Env)) {
		c.Env = append(c.Env, corev1.EnvVar{Name: k, Value: o.Env[k]})
	}
	c.Env = append(c.Env, corev1.EnvVar{Name: tokenEnv, ValueFrom: &corev1.EnvVarSource{
		SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: n.secret}, Key: tokenKey}}})
	c.VolumeMounts = []corev1.VolumeMount{{Name: "config", MountPath: configDir, ReadOnly: true}}
	spec := podSpec(o, c)
	spec.Volumes = []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{
		ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: n.config}}}}}
	if o.Separate {
		spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: labels(o, componentLoad)},
				TopologyKey:   corev1.LabelHostname,
			}},
		}}
	}
	count := int32(o.Parallelism)
	return job(o, meta, batchv1.JobSpec{
		CompletionMode:        ptr.To(batchv1.IndexedCompletion),
		Completions:           ptr.To(count),
		Parallelism:           ptr.To(count),
		BackoffLimitPerIndex:  ptr.To[int32](0),
		ActiveDeadlineSeconds: ptr.To(int64(o.Timeout.Seconds())),
		PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{
			{Action: batchv1.PodFailurePolicyActionIgnore, OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{
				{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue}}},
			{Action: batchv1.PodFailurePolicyActionFailIndex, OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
				ContainerName: ptr.To(componentLoad), Operator: batchv1.PodFailurePolicyOnExitCodesOpNotIn, Values: []int32{0}}},
		}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: meta.Labels}, Spec: spec},
	})
}

func job(o *Options, meta metav1.ObjectMeta, spec batchv1.JobSpec) *batchv1.Job {
	if o.TTL > 0 {
		spec.TTLSecondsAfterFinished = ptr.To(int32(o.TTL.Seconds()))
	}
	return &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: meta, Spec: spec}
}

// container runs middlebench as a non-root user on a read-only root.
func container(o *Options, name string, args []string) corev1.Container {
	c := corev1.Container{
		Name: name, Image: o.Image, Command: []string{Binary}, Args: args,
		SecurityContext: &corev1.SecurityContext{
			RunAsNonRoot:             ptr.To(true),
			ReadOnlyRootFilesystem:   ptr.To(true),
			AllowPrivilegeEscalation: ptr.To(false),
			Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
			SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
		},
	}
	if len(o.Requests) > 0 || len(o.Limits) > 0 {
		c.Resources = corev1.ResourceRequirements{Requests: o.Requests, Limits: o.Limits}
	}
	return c
}

func podSpec(o *Options, c corev1.Container) corev1.PodSpec {
	return corev1.PodSpec{
		RestartPolicy:      corev1.RestartPolicyNever,
		Containers:         []corev1.Container{c},
		NodeSelector:       o.NodeSelector,
		ServiceAccountName: o.ServiceAccount,
		SecurityContext:    &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](65532), RunAsGroup: ptr.To[int64](65532)},
	}
}
