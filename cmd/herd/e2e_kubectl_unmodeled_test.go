package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// webWithEnvManifest is a Deployment whose pods say what herd keeps but
// does not act on: an environment, a port, a probe, a volume and its
// mount.
const webWithEnvManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      volumes:
      - name: cache
        emptyDir: {}
      containers:
      - name: web
        image: nginx:1
        env:
        - {name: MODE, value: fast}
        ports:
        - {containerPort: 8080, name: http}
        readinessProbe:
          httpGet: {path: /healthz, port: 8080}
        volumeMounts:
        - {name: cache, mountPath: /cache}
`

// podWithEnvManifest is a pod with an environment, labelled LABEL, and
// the tolerations every new pod is given (as Kubernetes' admission gives
// them), which an update may not take away.
const podWithEnvManifest = `apiVersion: v1
kind: Pod
metadata:
  name: solo
  labels: {tier: LABEL}
spec:
  containers:
  - name: solo
    image: busybox
    env:
    - {name: MODE, value: fast}
  tolerations:
  - {key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
  - {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}
`

// TestKubectlKeepsWhatHerdDoesNotActOn: what a manifest says that herd
// does not act on reads back as written, so kubectl diff finds nothing
// to change after kubectl apply; a change of the environment rolls a
// Deployment's pods as in Kubernetes; and kubectl replace of a pod with
// its manifest (an environment, no defaults spelt out) changes its
// labels rather than being refused as a change of its spec, the
// manifest taking a new pod's defaults before it is compared, as
// kube-apiserver defaults it.
func TestKubectlKeepsWhatHerdDoesNotActOn(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	t.Parallel()
	srv := startServe(t, serveOptions{})
	k := newKubectl(t, srv.URL)
	dir := t.TempDir()
	write := func(name, body string) string {
		path := filepath.Join(dir, name)
		writeFile(t, path, []byte(body))
		return path
	}
	web := write("web.yaml", webWithEnvManifest)
	k.must(t, "apply", "-f", web)
	if res := k.run(t, "diff", "-f", web); res.Code != 0 || res.Stdout != "" {
		t.Errorf("kubectl diff after apply: exit %d, %q%s; want no difference", res.Code, res.Stdout, res.Stderr)
	}
	eventually(t, 30*time.Second, func() error {
		out := k.must(t, "get", "pods", "-l", "app=web", "-o", "jsonpath={.items[*].spec.containers[0].env[0].value} {.items[*].spec.volumes[0].name}")
		if out != "fast cache" {
			return fmt.Errorf("the pod's environment and volume: %q, want fast and cache", out)
		}
		return nil
	})
	k.must(t, "set", "env", "deployment/web", "MODE=slow")
	eventually(t, 30*time.Second, func() error {
		if n := len(strings.Fields(k.must(t, "get", "rs", "-l", "app=web", "-o", "name"))); n != 2 {
			return fmt.Errorf("%d ReplicaSets after the environment changed, want 2", n)
		}
		return nil
	})

	k.must(t, "create", "-f", write("solo.yaml", strings.Replace(podWithEnvManifest, "LABEL", "one", 1)))
	if res := k.run(t, "replace", "-f", write("solo2.yaml", strings.Replace(podWithEnvManifest, "LABEL", "two", 1))); res.Code != 0 {
		t.Fatalf("kubectl replace of a pod with an environment: exit %d: %s", res.Code, res.Stderr)
	}
	if out := k.must(t, "get", "pod", "solo", "-o", "jsonpath={.metadata.labels.tier} {.spec.containers[0].env[0].value}"); out != "two fast" {
		t.Errorf("solo after replace: %q, want tier two and its environment", out)
	}
}
