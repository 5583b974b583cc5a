package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// webStatefulSet is a StatefulSet of three, as an operator applies it.
const webStatefulSet = `apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  replicas: 3
  serviceName: web
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1
`

// statefulPod is one pod of web as kubectl lists it.
type statefulPod struct {
	name, image, hash string
	ready, deleting   bool
}

// webPods lists web's pods: name, image, revision hash, readiness and
// whether each is being deleted.
func webPods(t *testing.T, kc kubectl) []statefulPod {
	t.Helper()
	out := kc.must(t, "get", "pods", "-l", "app=web", "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.spec.containers[0].image} {.metadata.labels.controller-revision-hash} {.status.conditions[?(@.type=="Ready")].status} {.metadata.deletionTimestamp}{"\n"}{end}`)
	var pods []statefulPod
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 3 {
			continue
		}
		p := statefulPod{name: f[0], image: f[1], hash: f[2]}
		p.ready = len(f) > 3 && f[3] == "True"
		p.deleting = len(f) > 4 || (len(f) == 4 && f[3] != "True" && f[3] != "False")
		pods = append(pods, p)
	}
	return pods
}

// watchDeletions watches web's pods with kubectl get -w from now, once
// it has listed the initial ones, and returns what tells, in order, the
// first time each pod was seen being deleted.
func watchDeletions(t *testing.T, kc kubectl, initial int) func() []string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	args := append([]string{"--server", kc.base}, kc.auth...)
	args = append(args, "get", "pods", "-l", "app=web", "-w", "-o", `jsonpath={.metadata.name} {.metadata.deletionTimestamp}{"\n"}`)
	cmd := exec.CommandContext(ctx, "kubectl", args...)
	cmd.Env = kc.env
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1024)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	for range initial {
		select {
		case <-lines:
		case <-time.After(30 * time.Second):
			cancel()
			t.Fatal("kubectl get -w listed nothing")
		}
	}
	return func() []string {
		cancel()
		_ = cmd.Wait()
		var order []string
		for line := range lines {
			f := strings.Fields(line)
			if len(f) == 2 && !slices.Contains(order, f[0]) {
				order = append(order, f[0])
			}
		}
		return order
	}
}

// TestKubectlStatefulSets runs kubectl's StatefulSet commands against
// herd serve --demo 2, whose pods run on the demo's mock runtime:
// kubectl apply makes web-0, web-1 and web-2 in that order, each only
// after the ones before are Ready; kubectl get statefulsets prints READY
// and AGE; kubectl scale down removes web-2 first; kubectl set image
// rolls the new image from the highest ordinal down; kubectl rollout
// status statefulset waits for it; a selector the template does not
// match and a maxUnavailable of 0 are refused naming the field; kubectl
// delete takes the pods with it.
func TestKubectlStatefulSets(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	kc := newKubectl(t, srv.URL)
	path := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(path, []byte(webStatefulSet), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := kc.must(t, "apply", "-f", path); !strings.Contains(out, "statefulset.apps/web created") {
		t.Fatalf("kubectl apply said %q", out)
	}

	// In order: what exists is always web-0..web-k, and web-k+1 comes
	// only once web-0..web-k are Ready.
	eventually(t, 120*time.Second, func() error {
		pods := webPods(t, kc)
		for i, p := range pods {
			if p.name != fmt.Sprintf("web-%d", i) {
				t.Fatalf("pods %+v are not web-0..web-%d", pods, len(pods)-1)
			}
			if i > 0 && !pods[i-1].ready {
				// A later ordinal exists while this one is not ready: it
				// may have been ready then (OrderedReady waits only at
				// creation), but not before it ever was.
				if out := kc.must(t, "get", "pod", pods[i-1].name, "-o", "jsonpath={.status.phase}"); out != "Running" {
					t.Fatalf("%s exists while %s is %s", p.name, pods[i-1].name, out)
				}
			}
		}
		if len(pods) != 3 || !pods[2].ready {
			return fmt.Errorf("pods %+v", pods)
		}
		return nil
	})
	var first []string
	for _, n := range []string{"web-0", "web-1", "web-2"} {
		first = append(first, kc.must(t, "get", "pod", n, "-o", "jsonpath={.metadata.creationTimestamp}/{.metadata.ownerReferences[0].kind}/{.metadata.labels.statefulset\\.kubernetes\\.io/pod-name}"))
	}
	for i, f := range first {
		parts := strings.Split(f, "/")
		if len(parts) != 3 || parts[1] != "StatefulSet" || parts[2] != fmt.Sprintf("web-%d", i) || (i > 0 && parts[0] < strings.Split(first[i-1], "/")[0]) {
			t.Errorf("pod web-%d: %q (before it: %q)", i, f, first)
		}
	}
	eventually(t, 30*time.Second, func() error {
		header, rows := columns(kc.must(t, "get", "statefulsets"))
		if !slices.Equal(header, []string{"NAME", "READY", "AGE"}) || len(rows) != 1 || rows[0][0] != "web" || rows[0][1] != "3/3" {
			return fmt.Errorf("kubectl get statefulsets: %q %q", header, rows)
		}
		return nil
	})
	yaml := kc.must(t, "get", "sts", "web", "-o", "yaml")
	for _, want := range []string{"podManagementPolicy: OrderedReady", "partition: 0", "maxUnavailable: 1", "revisionHistoryLimit: 10", "type: RollingUpdate", "readyReplicas: 3"} {
		if !strings.Contains(yaml, want) {
			t.Errorf("kubectl get sts -o yaml has no %q:\n%s", want, yaml)
		}
	}

	// Scale down: web-2 goes first, and web-1 stays.
	kc.must(t, "scale", "statefulset", "web", "--replicas=2")
	eventually(t, 60*time.Second, func() error {
		pods := webPods(t, kc)
		for _, p := range pods {
			if p.deleting && p.name != "web-2" {
				t.Fatalf("scaling 3 to 2 deletes %s", p.name)
			}
		}
		if len(pods) != 2 || pods[0].name != "web-0" || pods[1].name != "web-1" {
			return fmt.Errorf("pods %+v", pods)
		}
		return nil
	})

	// A new image rolls from the highest ordinal: web-1 is deleted
	// before web-0, as a watch of the pods sees it.
	before := webPods(t, kc)
	deleted := watchDeletions(t, kc, 2)
	kc.must(t, "set", "image", "statefulset/web", "web=nginx:2")
	// kubectl says "partitioned" of any rolling update with a partition,
	// 0 (apps/v1's default) included, as it does against Kubernetes.
	res := kc.run(t, "rollout", "status", "statefulset/web", "--timeout=120s")
	if res.Code != 0 || !strings.Contains(res.Stdout, "roll out complete: 2 new pods have been updated") {
		t.Fatalf("kubectl rollout status: exit %d, %q %q", res.Code, res.Stdout, res.Stderr)
	}
	if order := deleted(); !slices.Equal(order, []string{"web-1", "web-0"}) {
		t.Errorf("the rollout deleted %q, want web-1 then web-0", order)
	}
	after := webPods(t, kc)
	if len(after) != 2 || after[0].image != "nginx:2" || after[1].image != "nginx:2" || after[0].hash == before[0].hash || after[0].hash != after[1].hash {
		t.Errorf("after the rollout: %+v (before %+v)", after, before)
	}

	bad := strings.Replace(strings.Replace(webStatefulSet, "name: web\nspec", "name: bad\nspec", 1), "      labels:\n        app: web", "      labels:\n        app: db", 1)
	badPath := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(badPath, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := kc.run(t, "create", "-f", badPath); res.Code == 0 || !strings.Contains(res.Stderr, "spec.template.metadata.labels") {
		t.Errorf("a selector the template does not match: exit %d, stderr %q", res.Code, res.Stderr)
	}

	// A rolling update that could never replace a pod is refused.
	if res := kc.run(t, "patch", "statefulset", "web", "--type=merge", "-p", `{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":0}}}}`); res.Code == 0 ||
		!strings.Contains(res.Stderr, "spec.updateStrategy.rollingUpdate.maxUnavailable") || !strings.Contains(res.Stderr, "cannot be 0") {
		t.Errorf("maxUnavailable 0: exit %d, stderr %q", res.Code, res.Stderr)
	}
	kc.must(t, "patch", "statefulset", "web", "--type=merge", "-p", `{"spec":{"updateStrategy":{"rollingUpdate":{"maxUnavailable":"50%"}}}}`)
	if out := kc.must(t, "get", "sts", "web", "-o", "jsonpath={.spec.updateStrategy.rollingUpdate.maxUnavailable}"); out != "50%" {
		t.Errorf("after a patch to 50%%, maxUnavailable is %q", out)
	}

	if out := kc.must(t, "delete", "statefulset", "web"); !strings.Contains(out, `statefulset.apps "web" deleted`) {
		t.Errorf("kubectl delete said %q", out)
	}
	eventually(t, 60*time.Second, func() error {
		if pods := webPods(t, kc); len(pods) != 0 {
			return fmt.Errorf("web's pods are still there: %+v", pods)
		}
		return nil
	})
}

// webImages waits for web's pods to be exactly n, all Ready, all running
// image, and returns their revision hash.
func webImages(t *testing.T, kc kubectl, n int, image string) string {
	t.Helper()
	var hash string
	eventually(t, 120*time.Second, func() error {
		pods := webPods(t, kc)
		if len(pods) != n {
			return fmt.Errorf("pods %+v", pods)
		}
		for _, p := range pods {
			if p.image != image || !p.ready || p.deleting || p.hash != pods[0].hash {
				return fmt.Errorf("pods %+v, want %d Ready at %s", pods, n, image)
			}
		}
		hash = pods[0].hash
		return nil
	})
	return hash
}

// history is kubectl rollout history statefulset/web: its revision
// numbers, in the order it prints them.
func history(t *testing.T, kc kubectl) []string {
	t.Helper()
	out := kc.must(t, "rollout", "history", "statefulset/web")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "statefulset.apps/web") {
		t.Fatalf("kubectl rollout history said %q", out)
	}
	header, rows := columns(strings.Join(lines[1:], "\n"))
	if !slices.Equal(header, []string{"REVISION", "CHANGE-CAUSE"}) {
		t.Fatalf("kubectl rollout history printed %q", header)
	}
	var revs []string
	for _, r := range rows {
		revs = append(revs, r[0])
	}
	return revs
}

// TestKubectlStatefulSetRolloutHistoryAndUndo runs kubectl rollout
// history and undo of a StatefulSet against herd serve --demo 2: each
// template is a revision kubectl lists (and shows one of with
// --revision); rollout undo goes back to the revision before, the old
// revision renumbered as the newest, and --to-revision to any kept;
// an undo to the template already there changes nothing; the revision
// in use deleted by hand is back at once; client-go, in its default
// configuration (protobuf), lists the revisions with their data.
func TestKubectlStatefulSetRolloutHistoryAndUndo(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	kc := newKubectl(t, srv.URL)
	path := filepath.Join(t.TempDir(), "web.yaml")
	if err := os.WriteFile(path, []byte(strings.Replace(webStatefulSet, "replicas: 3", "replicas: 2", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	kc.must(t, "apply", "-f", path)
	v1 := webImages(t, kc, 2, "nginx:1")
	if got := history(t, kc); !slices.Equal(got, []string{"1"}) {
		t.Fatalf("history of a new StatefulSet: %q", got)
	}

	kc.must(t, "set", "image", "statefulset/web", "web=nginx:2")
	v2 := webImages(t, kc, 2, "nginx:2")
	if got := history(t, kc); !slices.Equal(got, []string{"1", "2"}) {
		t.Fatalf("history after set image: %q", got)
	}
	if out := kc.must(t, "rollout", "history", "statefulset/web", "--revision=1"); !strings.Contains(out, "nginx:1") || strings.Contains(out, "nginx:2") {
		t.Errorf("kubectl rollout history --revision=1 said %q", out)
	}
	header, rows := columns(kc.must(t, "get", "controllerrevisions"))
	if !slices.Equal(header, []string{"NAME", "CONTROLLER", "REVISION", "AGE"}) || len(rows) != 2 ||
		!slices.Contains([]string{rows[0][0], rows[1][0]}, v1) || rows[0][1] != "statefulset.apps/web" {
		t.Errorf("kubectl get controllerrevisions: %q %q (v1 %s)", header, rows, v1)
	}

	if out := kc.must(t, "rollout", "undo", "statefulset/web"); !strings.Contains(out, "statefulset.apps/web rolled back") {
		t.Errorf("kubectl rollout undo said %q", out)
	}
	if got := webImages(t, kc, 2, "nginx:1"); got != v1 {
		t.Errorf("after the undo the pods are at %s, want the first revision %s", got, v1)
	}
	if got := history(t, kc); !slices.Equal(got, []string{"2", "3"}) {
		t.Errorf("history after the undo: %q, want the first revision renumbered 3", got)
	}
	if out := kc.must(t, "get", "sts", "web", "-o", "jsonpath={.status.currentRevision} {.status.updateRevision}"); out != v1+" "+v1 {
		t.Errorf("status revisions %q, want %s twice", out, v1)
	}

	kc.must(t, "rollout", "undo", "statefulset/web", "--to-revision=2")
	if got := webImages(t, kc, 2, "nginx:2"); got != v2 {
		t.Errorf("after undo --to-revision=2 the pods are at %s, want %s", got, v2)
	}
	eventually(t, 30*time.Second, func() error {
		if got := history(t, kc); !slices.Equal(got, []string{"3", "4"}) {
			return fmt.Errorf("history after undo --to-revision=2: %q", got)
		}
		return nil
	})
	// An undo to the template already there changes nothing. A kubectl of
	// herd's Kubernetes version finds the revision's data byte for byte
	// what it computes of the StatefulSet and skips it; an older one
	// (whose JSON of a template carries "creationTimestamp":null) sends
	// the patch, which herd finds changes nothing, as kube-apiserver does.
	generation := kc.must(t, "get", "sts", "web", "-o", "jsonpath={.metadata.generation}")
	if out := kc.must(t, "rollout", "undo", "statefulset/web", "--to-revision=4"); !strings.Contains(out, "skipped rollback (current template already matches revision 4)") &&
		!strings.Contains(out, "statefulset.apps/web rolled back") {
		t.Errorf("an undo to the template already there said %q", out)
	}
	if got := kc.must(t, "get", "sts", "web", "-o", "jsonpath={.metadata.generation}"); got != generation {
		t.Errorf("an undo to the template already there made generation %s of %s", got, generation)
	}
	if got := history(t, kc); !slices.Equal(got, []string{"3", "4"}) {
		t.Errorf("history after an undo to the template already there: %q", got)
	}
	if res := kc.run(t, "rollout", "undo", "statefulset/web", "--to-revision=9"); res.Code == 0 || !strings.Contains(res.Stderr, "unable to find specified revision 9") {
		t.Errorf("an undo to no revision: exit %d, %q", res.Code, res.Stderr)
	}

	// A revision deleted by hand is made again at once, through the
	// StatefulSet's watch of its revisions, well before the 30 s resync.
	kc.must(t, "delete", "controllerrevision", v2)
	eventually(t, 5*time.Second, func() error {
		if res := kc.run(t, "get", "controllerrevision", v2, "-o", "name"); res.Code != 0 {
			return fmt.Errorf("revision %s deleted by hand is not back: %q", v2, res.Stderr)
		}
		return nil
	})
	if got := history(t, kc); !slices.Equal(got, []string{"3", "4"}) {
		t.Errorf("history once the revision deleted by hand is back: %q", got)
	}

	rec := newRecorder(t, srv.URL)
	cs := newClientset(t, &rest.Config{Host: rec.URL})
	list, err := cs.AppsV1().ControllerRevisions("default").List(t.Context(), metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(list.Items) != 2 {
		t.Fatalf("client-go list of controllerrevisions: %+v, %v", list, err)
	}
	for _, r := range list.Items {
		if !strings.HasPrefix(string(r.Data.Raw), `{"spec":{"template":{"$patch":"replace"`) || r.OwnerReferences[0].Kind != "StatefulSet" {
			t.Errorf("revision %s: data %s, owners %+v", r.Name, r.Data.Raw, r.OwnerReferences)
		}
	}
	rec.mu.Lock()
	for _, ex := range rec.log {
		if ex.resource == "controllerrevisions" && ex.answered != "application/vnd.kubernetes.protobuf" {
			t.Errorf("herd answered client-go's list in %q, want protobuf", ex.answered)
		}
	}
	rec.mu.Unlock()

	kc.must(t, "delete", "statefulset", "web")
	eventually(t, 60*time.Second, func() error {
		if out := kc.must(t, "get", "controllerrevisions", "-o", "name"); strings.TrimSpace(out) != "" {
			return fmt.Errorf("revisions outlive their StatefulSet: %q", out)
		}
		return nil
	})
}
