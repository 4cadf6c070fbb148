package deploy

import (
	"bufio"
	"bytes"
	"fmt"
	"go/build"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	k8syaml "k8s.io/apimachinery/pkg/util/yaml"
	psa "k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/yaml"

	"github.com/millzero/millzero/internal/version"
)

// chartDir is the chart, relative to this package.
const chartDir = "helm/millzero"

// The image's user, which every pod must run as (deploy/Dockerfile's USER).
const millzeroUID = 10001

// Every render uses this release and namespace.
const (
	release   = "mz"
	namespace = "games"
)

const defaultURL = "s3://millzero/runs/nine?endpoint=http://minio:9000&region=us-east-1&use_path_style=true"

// needExternal skips a test whose tool is missing, unless
// MILLZERO_EXTERNAL_TESTS=1 (make test) says the tools must be there.
func needExternal(t *testing.T, missing, install string) {
	t.Helper()
	if os.Getenv("MILLZERO_EXTERNAL_TESTS") == "1" {
		t.Fatalf("%s; MILLZERO_EXTERNAL_TESTS=1 requires it (install: %s, or make setup)", missing, install)
	}
	t.Skipf("SKIP: %s; to run this test: %s (or make setup)", missing, install)
}

// helmBinary finds a helm v3 on PATH or where `go install` puts it
// (scripts/setup.d/50-helm.sh), and skips or fails when there is none.
func helmBinary(t *testing.T) string {
	t.Helper()
	var candidates []string
	if p, err := exec.LookPath("helm"); err == nil {
		candidates = append(candidates, p)
	}
	var dirs []string
	if gobin := os.Getenv("GOBIN"); gobin != "" {
		dirs = append(dirs, gobin)
	}
	for _, gopath := range filepath.SplitList(build.Default.GOPATH) {
		dirs = append(dirs, filepath.Join(gopath, "bin"))
	}
	for _, dir := range dirs {
		candidates = append(candidates, filepath.Join(dir, "helm"))
	}
	var others []string
	for _, p := range candidates {
		out, err := exec.Command(p, "version", "--short").Output()
		if err != nil {
			continue
		}
		v := strings.TrimSpace(string(out))
		if strings.HasPrefix(v, "v3.") {
			return p
		}
		others = append(others, p+" is "+v)
	}
	missing := "no helm v3 on PATH nor in " + strings.Join(dirs, ", ")
	if len(others) > 0 {
		missing += " (" + strings.Join(others, "; ") + ")"
	}
	needExternal(t, missing, "bash scripts/setup.d/50-helm.sh")
	return ""
}

// runHelm runs helm with args in this package's directory and returns its
// standard output and, on failure, an error holding its standard error.
func runHelm(t *testing.T, helm string, args ...string) ([]byte, error) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(helm, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("helm %s: %w\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.Bytes(), nil
}

// variant is a set of values and what the chart must render from them.
type variant struct {
	name  string
	files []string // values files, relative to this package
	sets  []string // helm --set arguments
	want  expected
}

// expected is what a variant's manifests must say.
type expected struct {
	url           string
	image         string
	replicas      int32    // self-play pods
	workers       int64    // self-play workers per pod (and CPU request)
	localSelfplay bool     // the trainer's --local-selfplay
	configArgs    []string // the trainer's --config arguments
	trainerExtra  []string // the trainer's extra arguments, last
	secret        string   // the Secret the containers take their environment from; "" none
	createdKeys   []string // keys of the Secret the chart creates; nil: it creates none
	configMap     string   // run.yaml of the chart's ConfigMap; "" none
	arenaArgs     []string // arguments of the arena Job; nil: no Job
	arenaWorkers  int64
	gcpKeyPath    string // GOOGLE_APPLICATION_CREDENTIALS; "" none
	prefix        string // the resources' name prefix
}

// valueArgs are the helm arguments that give the variant's values.
func (v variant) valueArgs() []string {
	var args []string
	for _, f := range v.files {
		args = append(args, "--values", f)
	}
	for _, s := range v.sets {
		args = append(args, "--set", s)
	}
	return args
}

// variants are the default values and a few users' values: the arena on,
// an existing Secret, many replicas, a GCS run, --set from the command line.
var variants = []variant{
	{name: "default", want: expected{
		url: defaultURL, image: "millzero:" + version.Release, replicas: 1, workers: 2, prefix: "mz-millzero",
	}},
	{name: "arena job and a created secret", files: []string{"testdata/values/arena.yaml"}, want: expected{
		url:         "s3://games/runs/three?endpoint=http://minio.storage:9000&region=us-east-1&use_path_style=true",
		image:       "millzero:" + version.Release,
		replicas:    1,
		workers:     2,
		configArgs:  []string{"--config", "three-test"},
		secret:      "mz-millzero-store",
		createdKeys: []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"},
		arenaArgs: []string{"arena", "alphabeta:4", "random", "rollout@200", "--workers", "3",
			"--pairs", "20", "--gauntlet", "--run", "s3://games/runs/three?endpoint=http://minio.storage:9000&region=us-east-1&use_path_style=true"},
		arenaWorkers: 3,
		prefix:       "mz-millzero",
	}},
	{name: "existing secret", files: []string{"testdata/values/existing-secret.yaml"}, want: expected{
		url: "s3://my-bucket/millzero/nine-a?region=eu-west-1", image: "registry.example.com:5000/ml/millzero:2026.11.23",
		replicas: 1, workers: 2, secret: "millzero-store", prefix: "mz-millzero",
	}},
	{name: "several replicas", files: []string{"testdata/values/scaled.yaml"}, want: expected{
		url: defaultURL, image: "millzero:" + version.Release, replicas: 12, workers: 4, localSelfplay: true,
		configArgs: []string{"--config", "/etc/millzero/run.yaml"}, trainerExtra: []string{"--hours", "8"},
		secret: "creds", configMap: "variant: three\nloop: {generations: 4}\n", prefix: "nine",
	}},
	{name: "the README's MinIO example", files: []string{"examples/minio.yaml"}, want: expected{
		url:   "s3://millzero/runs/nine?endpoint=http://minio.minio:9000&region=us-east-1&use_path_style=true",
		image: "registry.example.com/millzero:" + version.Release, replicas: 4, workers: 2, configArgs: []string{"--config", "nine"},
		secret: "millzero-store", prefix: "mz-millzero",
	}},
	{name: "gcs run, workers paused", files: []string{"testdata/values/gcs.yaml"}, want: expected{
		url: "gs://millzero-runs/nine", image: "millzero:" + version.Release, replicas: 0, workers: 2,
		gcpKeyPath: "/var/run/secrets/millzero/gcp/key.json", prefix: "mz-millzero",
	}},
	{name: "replicas and workers with --set", sets: []string{"selfplay.replicas=3", "selfplay.workers=6", "store.existingSecret=s3-creds"}, want: expected{
		url: defaultURL, image: "millzero:" + version.Release, replicas: 3, workers: 6, secret: "s3-creds", prefix: "mz-millzero",
	}},
}

func TestChart_LintPassesForEveryVariant(t *testing.T) {
	helm := helmBinary(t)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"lint", "--strict", chartDir, "--namespace", namespace}, v.valueArgs()...)
			if _, err := runHelm(t, helm, args...); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// manifest is one rendered document, decoded into its API type.
type manifest struct {
	source string // the template it came from
	obj    any    // *appsv1.Deployment, *batchv1.Job, *corev1.Secret, *corev1.ConfigMap
	name   string
	labels map[string]string
}

// decoders are the kinds the chart may render, by apiVersion and kind.
var decoders = map[string]func() any{
	"apps/v1 Deployment": func() any { return &appsv1.Deployment{} },
	"batch/v1 Job":       func() any { return &batchv1.Job{} },
	"v1 Secret":          func() any { return &corev1.Secret{} },
	"v1 ConfigMap":       func() any { return &corev1.ConfigMap{} },
}

// decodeManifests splits helm template's output into documents and decodes
// each strictly: an unknown or duplicated field, a wrong type or an unknown
// kind is an error.
func decodeManifests(out []byte) ([]manifest, error) {
	r := k8syaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(out)))
	var ms []manifest
	for {
		doc, err := r.Read()
		if err == io.EOF {
			return ms, nil
		}
		if err != nil {
			return nil, fmt.Errorf("split the rendered manifests: %w", err)
		}
		source := "?"
		for _, line := range strings.Split(string(doc), "\n") {
			if s, ok := strings.CutPrefix(line, "# Source: "); ok {
				source = s
			}
		}
		js, err := yaml.YAMLToJSONStrict(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: not YAML: %w", source, err)
		}
		if string(bytes.TrimSpace(js)) == "null" {
			continue // a document holding only comments
		}
		var meta struct {
			metav1.TypeMeta `json:",inline"`
			Metadata        metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &meta); err != nil {
			return nil, fmt.Errorf("%s: read apiVersion, kind and metadata: %w", source, err)
		}
		newObj, ok := decoders[meta.APIVersion+" "+meta.Kind]
		if !ok {
			return nil, fmt.Errorf("%s: kind %s %s is not one the test knows; add it to decoders", source, meta.APIVersion, meta.Kind)
		}
		obj := newObj()
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			return nil, fmt.Errorf("%s: %s %s does not decode strictly into the Kubernetes type: %w", source, meta.Kind, meta.Metadata.Name, err)
		}
		ms = append(ms, manifest{source: source, obj: obj, name: meta.Metadata.Name, labels: meta.Metadata.Labels})
	}
}

func TestChart_RendersStrictlyDecodableManifestsWithTheRunsShape(t *testing.T) {
	helm := helmBinary(t)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			out, err := runHelm(t, helm, append([]string{"template", release, chartDir, "--namespace", namespace}, v.valueArgs()...)...)
			if err != nil {
				t.Fatal(err)
			}
			ms, err := decodeManifests(out)
			if err != nil {
				t.Fatal(err)
			}
			checkManifests(t, ms, v.want)
		})
	}
}

// checkManifests checks every rule the chart promises for one variant.
func checkManifests(t *testing.T, ms []manifest, want expected) {
	t.Helper()
	var (
		deployments = map[string]*appsv1.Deployment{}
		jobs        []*batchv1.Job
		secrets     []*corev1.Secret
		configMaps  []*corev1.ConfigMap
	)
	for _, m := range ms {
		checkMeta(t, m)
		switch o := m.obj.(type) {
		case *appsv1.Deployment:
			deployments[o.Name] = o
		case *batchv1.Job:
			jobs = append(jobs, o)
		case *corev1.Secret:
			secrets = append(secrets, o)
		case *corev1.ConfigMap:
			configMaps = append(configMaps, o)
		}
	}
	if len(deployments) != 2 {
		t.Fatalf("want the trainer and selfplay Deployments, got %d Deployments", len(deployments))
	}

	trainer := deployments[want.prefix+"-trainer"]
	if trainer == nil {
		t.Fatalf("no Deployment %s-trainer", want.prefix)
	}
	checkTrainer(t, trainer, want)

	selfplay := deployments[want.prefix+"-selfplay"]
	if selfplay == nil {
		t.Fatalf("no Deployment %s-selfplay", want.prefix)
	}
	checkSelfplay(t, selfplay, want)

	switch {
	case want.arenaArgs == nil && len(jobs) > 0:
		t.Errorf("arena is off, yet the chart renders Job %s", jobs[0].Name)
	case want.arenaArgs != nil && len(jobs) != 1:
		t.Errorf("arena is on: want one Job, got %d", len(jobs))
	case want.arenaArgs != nil:
		checkArena(t, jobs[0], want)
	}

	switch {
	case want.createdKeys == nil && len(secrets) > 0:
		t.Errorf("the chart creates Secret %s though the values give no credentials (or an existing Secret)", secrets[0].Name)
	case want.createdKeys != nil && len(secrets) != 1:
		t.Errorf("want the chart's store Secret, got %d Secrets", len(secrets))
	case want.createdKeys != nil:
		s := secrets[0]
		if s.Name != want.secret {
			t.Errorf("the chart's Secret is %s, the pods read %s", s.Name, want.secret)
		}
		var keys []string
		for k, v := range s.StringData {
			keys = append(keys, k)
			if v == "" {
				t.Errorf("Secret %s: %s is empty", s.Name, k)
			}
		}
		slices.Sort(keys)
		if !slices.Equal(keys, want.createdKeys) {
			t.Errorf("Secret %s holds %v, want %v", s.Name, keys, want.createdKeys)
		}
	}

	switch {
	case want.configMap == "" && len(configMaps) > 0:
		t.Errorf("no run.configYAML, yet the chart renders ConfigMap %s", configMaps[0].Name)
	case want.configMap != "" && len(configMaps) != 1:
		t.Errorf("want the run config's ConfigMap, got %d ConfigMaps", len(configMaps))
	case want.configMap != "":
		if got := configMaps[0].Data["run.yaml"]; got != want.configMap {
			t.Errorf("ConfigMap %s run.yaml = %q, want %q", configMaps[0].Name, got, want.configMap)
		}
	}
}

// checkMeta checks the name and labels every object must have.
func checkMeta(t *testing.T, m manifest) {
	t.Helper()
	// Pods, ReplicaSets and Jobs derive label values from these names: 63 characters at most.
	for _, msg := range validation.IsDNS1123Label(m.name) {
		t.Errorf("%s: name %q: %s", m.source, m.name, msg)
	}
	checkLabels(t, m.source, m.labels)
	for _, k := range []string{"app.kubernetes.io/name", "app.kubernetes.io/instance", "app.kubernetes.io/component", "app.kubernetes.io/managed-by", "helm.sh/chart"} {
		if m.labels[k] == "" {
			t.Errorf("%s: %s has no label %s", m.source, m.name, k)
		}
	}
	if m.labels["app.kubernetes.io/instance"] != release {
		t.Errorf("%s: label app.kubernetes.io/instance = %q, want the release %q", m.source, m.labels["app.kubernetes.io/instance"], release)
	}
}

func checkLabels(t *testing.T, where string, labels map[string]string) {
	t.Helper()
	for k, v := range labels {
		for _, msg := range validation.IsQualifiedName(k) {
			t.Errorf("%s: label key %q: %s", where, k, msg)
		}
		for _, msg := range validation.IsValidLabelValue(v) {
			t.Errorf("%s: label %s value %q: %s", where, k, v, msg)
		}
	}
}

func checkTrainer(t *testing.T, d *appsv1.Deployment, want expected) {
	t.Helper()
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
		t.Errorf("trainer: replicas %v, want exactly 1 (one lease holder)", d.Spec.Replicas)
	}
	if d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("trainer: strategy %q, want Recreate (the old trainer goes before the new starts)", d.Spec.Strategy.Type)
	}
	checkSelector(t, d)
	c := checkPod(t, "trainer", &d.Spec.Template, want)
	args := []string{"train", "--run", want.url, "--local-selfplay=" + strconv.FormatBool(want.localSelfplay), "--cache", "/data/cache"}
	args = append(args, want.configArgs...)
	args = append(args, want.trainerExtra...)
	if !slices.Equal(c.Args, args) {
		t.Errorf("trainer: args %q, want %q", c.Args, args)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("trainer: resources %v: want CPU and memory requests and a memory limit", c.Resources)
	}
}

func checkSelfplay(t *testing.T, d *appsv1.Deployment, want expected) {
	t.Helper()
	if d.Spec.Replicas == nil || *d.Spec.Replicas != want.replicas {
		t.Errorf("selfplay: replicas %v, want %d (selfplay.replicas)", d.Spec.Replicas, want.replicas)
	}
	checkSelector(t, d)
	c := checkPod(t, "selfplay", &d.Spec.Template, want)
	workers := strconv.FormatInt(want.workers, 10)
	args := []string{"selfplay", "--run", want.url, "--follow", "--workers", workers, "--cache", "/data/cache"}
	if !slices.Equal(c.Args, args) {
		t.Errorf("selfplay: args %q, want %q", c.Args, args)
	}
	checkWorkerCPU(t, "selfplay", c, want.workers)
}

func checkArena(t *testing.T, j *batchv1.Job, want expected) {
	t.Helper()
	if j.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("arena: restartPolicy %q, want Never (a Job retries by backoffLimit)", j.Spec.Template.Spec.RestartPolicy)
	}
	checkLabels(t, "arena pod template", j.Spec.Template.Labels)
	c := checkPod(t, "arena", &j.Spec.Template, want)
	if !slices.Equal(c.Args, want.arenaArgs) {
		t.Errorf("arena: args %q, want %q", c.Args, want.arenaArgs)
	}
	checkWorkerCPU(t, "arena", c, want.arenaWorkers)
}

// checkWorkerCPU checks that a container asks for one core per worker and
// tells Go as much.
func checkWorkerCPU(t *testing.T, what string, c *corev1.Container, workers int64) {
	t.Helper()
	if got, want := c.Resources.Requests.Cpu(), resource.NewQuantity(workers, resource.DecimalSI); got.Cmp(*want) != 0 {
		t.Errorf("%s: CPU request %s, want %s (one core per worker)", what, got, want)
	}
	if lim, ok := c.Resources.Limits[corev1.ResourceCPU]; ok && lim.Cmp(*resource.NewQuantity(workers, resource.DecimalSI)) < 0 {
		t.Errorf("%s: CPU limit %s below its %d workers", what, lim.String(), workers)
	}
	if got := envValue(c, "GOMAXPROCS"); got != strconv.FormatInt(workers, 10) {
		t.Errorf("%s: GOMAXPROCS %q, want %d", what, got, workers)
	}
}

func checkSelector(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	if d.Spec.Selector == nil || len(d.Spec.Selector.MatchLabels) == 0 {
		t.Fatalf("%s: no selector", d.Name)
	}
	for k, v := range d.Spec.Selector.MatchLabels {
		if d.Spec.Template.Labels[k] != v {
			t.Errorf("%s: selector %s=%s does not match the pod template's labels %v", d.Name, k, v, d.Spec.Template.Labels)
		}
	}
	checkLabels(t, d.Name+" pod template", d.Spec.Template.Labels)
}

func envValue(c *corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

// checkPod checks what every pod of the chart must be: one container of
// the wanted image, non-root as the image's user with a read-only root,
// writable emptyDirs at /data and /tmp, the store's credentials from the
// Secret as environment. It returns the container.
func checkPod(t *testing.T, what string, pt *corev1.PodTemplateSpec, want expected) *corev1.Container {
	t.Helper()
	spec := &pt.Spec
	if len(spec.Containers) != 1 {
		t.Fatalf("%s: %d containers, want 1", what, len(spec.Containers))
	}
	c := &spec.Containers[0]
	if c.Image != want.image {
		t.Errorf("%s: image %q, want %q", what, c.Image, want.image)
	}
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		t.Errorf("%s: the API token is mounted; the pods never call the API", what)
	}

	checkRestricted(t, what, pt)

	psc := spec.SecurityContext
	switch {
	case psc == nil:
		t.Errorf("%s: no pod securityContext", what)
	case psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot,
		psc.RunAsUser == nil || *psc.RunAsUser != millzeroUID,
		psc.RunAsGroup == nil || *psc.RunAsGroup != millzeroUID,
		psc.FSGroup == nil || *psc.FSGroup != millzeroUID:
		t.Errorf("%s: pod securityContext %+v: want runAsNonRoot and uid, gid and fsGroup %d", what, *psc, millzeroUID)
	case psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault:
		t.Errorf("%s: seccompProfile %v, want RuntimeDefault", what, psc.SeccompProfile)
	}
	sc := c.SecurityContext
	switch {
	case sc == nil:
		t.Errorf("%s: no container securityContext", what)
	case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Errorf("%s: the root file system is writable", what)
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Errorf("%s: privilege escalation is allowed", what)
	case sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != millzeroUID:
		t.Errorf("%s: container securityContext does not run as non-root uid %d", what, millzeroUID)
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
		t.Errorf("%s: capabilities %v, want all dropped", what, sc.Capabilities)
	}

	volumes := map[string]corev1.Volume{}
	for _, v := range spec.Volumes {
		volumes[v.Name] = v
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		if _, ok := volumes[m.Name]; !ok {
			t.Errorf("%s: mount %s of undefined volume %s", what, m.MountPath, m.Name)
		}
		mounts[m.MountPath] = m.Name
	}
	for _, dir := range []string{"/data", "/tmp"} {
		if v, ok := volumes[mounts[dir]]; !ok || v.EmptyDir == nil || mounts[dir] == "" {
			t.Errorf("%s: %s is not a mounted emptyDir (the root file system is read-only)", what, dir)
		}
	}
	for _, e := range c.Env {
		for _, msg := range validation.IsEnvVarName(e.Name) {
			t.Errorf("%s: env %q: %s", what, e.Name, msg)
		}
	}
	if got := envValue(c, "HOME"); got != "/data" {
		t.Errorf("%s: HOME %q, want /data (writable)", what, got)
	}

	var secrets []string
	for _, ef := range c.EnvFrom {
		if ef.SecretRef != nil {
			secrets = append(secrets, ef.SecretRef.Name)
		}
	}
	switch {
	case want.secret == "" && len(secrets) > 0:
		t.Errorf("%s: environment from Secrets %v, want none", what, secrets)
	case want.secret != "" && !slices.Equal(secrets, []string{want.secret}):
		t.Errorf("%s: environment from Secrets %v, want the store's %s", what, secrets, want.secret)
	}

	gcpPath := envValue(c, "GOOGLE_APPLICATION_CREDENTIALS")
	if gcpPath != want.gcpKeyPath {
		t.Errorf("%s: GOOGLE_APPLICATION_CREDENTIALS %q, want %q", what, gcpPath, want.gcpKeyPath)
	}
	if gcpPath != "" {
		name := mounts[filepath.Dir(gcpPath)]
		if v, ok := volumes[name]; !ok || v.Secret == nil || len(v.Secret.Items) != 1 || v.Secret.Items[0].Path != filepath.Base(gcpPath) {
			t.Errorf("%s: GOOGLE_APPLICATION_CREDENTIALS %s is not a file of a mounted Secret", what, gcpPath)
		}
	}
	if want.configMap != "" {
		if v, ok := volumes[mounts["/etc/millzero"]]; !ok || v.ConfigMap == nil || v.ConfigMap.Name != want.prefix+"-config" {
			t.Errorf("%s: the run config's ConfigMap is not mounted at /etc/millzero", what)
		}
	}
	return c
}

// checkRestricted runs the Pod Security admission's own checks on a pod
// template: it must meet the "restricted" standard, so that it is admitted
// into a namespace that enforces it.
func checkRestricted(t *testing.T, what string, pt *corev1.PodTemplateSpec) {
	t.Helper()
	eval, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lv := psa.LevelVersion{Level: psa.LevelRestricted, Version: psa.LatestVersion()}
	res := policy.AggregateCheckResults(eval.EvaluatePod(lv, &pt.ObjectMeta, &pt.Spec))
	if !res.Allowed {
		t.Errorf("%s: the pod does not meet the restricted Pod Security Standard: %s", what, res.ForbiddenDetail())
	}
}

// badValues are values the chart must refuse, with the part of helm's
// message that names the culprit. lint is false for the checks only the
// templates make (helm lint logs a template's fail without failing).
var badValues = []struct {
	name   string
	values string
	msg    string
	lint   bool
}{
	{"negative replicas", "selfplay: {replicas: -1}", "/selfplay/replicas", true},
	{"replicas as text", "selfplay: {replicas: many}", "/selfplay/replicas", true},
	{"no workers", "selfplay: {workers: 0}", "/selfplay/workers", true},
	{"fractional workers", "selfplay: {workers: 1.5}", "/selfplay/workers", true},
	{"misspelt key", "selfplay: {replica: 3}", "replica", true},
	{"unknown top-level key", "trainers: {}", "trainers", true},
	{"cpu request of the workers set by hand", "selfplay: {resources: {requests: {cpu: 8}}}", "/selfplay/resources/requests", true},
	{"memory that is not a quantity", "trainer: {resources: {limits: {memory: lots}}}", "/trainer/resources/limits/memory", true},
	{"local path as run", "run: {url: runs/nine}", "/run/url", true},
	{"file URL as run", "run: {url: \"file:///tmp/run\"}", "/run/url", true},
	{"flag as boolean text", "trainer: {localSelfplay: \"no\"}", "/trainer/localSelfplay", true},
	{"unknown pull policy", "image: {pullPolicy: Sometimes}", "/image/pullPolicy", true},
	{"credential that is not an env name", "store: {env: {aws-key: x}}", "/store/env", true},
	{"config twice", "run: {config: nine, configYAML: \"variant: nine\"}", "/run/configYAML", true},
	{"arena with one player", "arena: {enabled: true, players: [random]}", "/arena/players", true},
	{"arena player that is a flag", "arena: {players: [random, --games]}", "/arena/players/1", true},
	{"CPU limit below the workers", "selfplay: {workers: 4, resources: {limits: {cpu: 3500m}}}", "selfplay.resources.limits.cpu 3500m is below selfplay.workers (4)", false},
}

func TestChart_RefusesBadValuesNamingThem(t *testing.T) {
	helm := helmBinary(t)
	dir := t.TempDir()
	for i, bad := range badValues {
		t.Run(bad.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(dir, fmt.Sprintf("bad-%d.yaml", i))
			if err := os.WriteFile(file, []byte(bad.values+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := runHelm(t, helm, "template", release, chartDir, "--values", file)
			if err == nil {
				t.Fatalf("helm template accepts %s", bad.values)
			}
			if !strings.Contains(err.Error(), bad.msg) {
				t.Errorf("helm template refuses %s without naming %q:\n%v", bad.values, bad.msg, err)
			}
			if !bad.lint {
				return
			}
			_, err = runHelm(t, helm, "lint", chartDir, "--values", file)
			if err == nil {
				t.Fatalf("helm lint accepts %s", bad.values)
			}
			if !strings.Contains(err.Error(), bad.msg) {
				t.Errorf("helm lint refuses %s without naming %q:\n%v", bad.values, bad.msg, err)
			}
		})
	}
}

// renderNotes renders the chart's NOTES.txt, which helm template leaves
// out: a copy of the chart gets the notes as a named template and a
// ConfigMap holding its text.
func renderNotes(t *testing.T, helm string, v variant) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "millzero")
	if err := os.CopyFS(dir, os.DirFS(chartDir)); err != nil {
		t.Fatal(err)
	}
	notes, err := os.ReadFile(filepath.Join(dir, "templates", "NOTES.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "templates", "NOTES.txt")); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"_notes_test.tpl": `{{- define "notestest.notes" -}}` + string(notes) + `{{- end }}`,
		"notes-test.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: notes-test\ndata:\n  notes: {{ include \"notestest.notes\" . | toJson }}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, "templates", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := append([]string{"template", release, dir, "--namespace", namespace, "--show-only", "templates/notes-test.yaml"}, v.valueArgs()...)
	out, err := runHelm(t, helm, args...)
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	if err := yaml.UnmarshalStrict(out, &cm); err != nil {
		t.Fatalf("the rendered notes: %v\n%s", err, out)
	}
	return cm.Data["notes"]
}

func TestChart_NotesTellHowToWatchAndScaleTheRun(t *testing.T) {
	helm := helmBinary(t)
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			notes := renderNotes(t, helm, v)
			want := []string{
				"millzero status --run '" + v.want.url + "'",
				"kubectl --namespace " + namespace + " scale deploy/" + v.want.prefix + "-selfplay --replicas N",
				"--set selfplay.replicas=N",
				"logs -f deploy/" + v.want.prefix + "-trainer",
			}
			if v.want.arenaArgs != nil {
				want = append(want, "job/"+v.want.prefix+"-arena-r1")
			}
			if v.want.replicas == 0 && !v.want.localSelfplay {
				want = append(want, "WARNING: selfplay.replicas is 0")
			}
			for _, w := range want {
				if !strings.Contains(notes, w) {
					t.Errorf("NOTES.txt does not say %q:\n%s", w, notes)
				}
			}
			if v.want.replicas != 0 && strings.Contains(notes, "WARNING") {
				t.Errorf("NOTES.txt warns with %d self-play pods:\n%s", v.want.replicas, notes)
			}
		})
	}
}

// TestChart_MetricsOnlyWhenEnabled: by default no container serves
// /metrics and no pod is scraped; with metrics.enabled the trainer and the
// workers get --metrics-addr on the port, a container port named metrics
// and the prometheus.io annotations, and the arena job gets none of them.
func TestChart_MetricsOnlyWhenEnabled(t *testing.T) {
	helm := helmBinary(t)
	for _, on := range []bool{false, true} {
		args := []string{"template", release, chartDir, "--namespace", namespace, "--set", "run.url=s3://bucket/runs/nine",
			"--set", "arena.enabled=true", "--set", "arena.players={random,alphabeta:2}"}
		if on {
			args = append(args, "--set", "metrics.enabled=true", "--set", "metrics.port=9191")
		}
		out, err := runHelm(t, helm, args...)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := decodeManifests(out)
		if err != nil {
			t.Fatal(err)
		}
		pods := 0
		for _, m := range ms {
			var pt *corev1.PodTemplateSpec
			served := false
			switch o := m.obj.(type) {
			case *appsv1.Deployment:
				pt, served = &o.Spec.Template, on
			case *batchv1.Job:
				pt = &o.Spec.Template
			default:
				continue
			}
			pods++
			c := pt.Spec.Containers[0]
			hasArg := slices.Contains(c.Args, "--metrics-addr=:9191")
			hasPort := len(c.Ports) == 1 && c.Ports[0].Name == "metrics" && c.Ports[0].ContainerPort == 9191
			hasAnn := pt.Annotations["prometheus.io/scrape"] == "true" && pt.Annotations["prometheus.io/port"] == "9191"
			if hasArg != served || hasPort != served || hasAnn != served {
				t.Errorf("metrics.enabled=%v, %s: flag %v, port %v, annotations %v; want all %v", on, c.Name, hasArg, hasPort, hasAnn, served)
			}
		}
		if pods != 3 {
			t.Errorf("metrics.enabled=%v: %d pod templates, want the trainer, the workers and the arena job", on, pods)
		}
	}
}
