package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestKubectlDeployments runs kubectl's Deployment commands against herd
// serve with demo nodes to run the pods: create deployment, rollout
// status, set image, rollout history (with a change-cause), rollout undo
// to a revision, pause and resume, restart, scale, get, and delete, which
// takes the Deployment's ReplicaSets and pods with it.
func TestKubectlDeployments(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "3"}})
	kc := newKubectl(t, srv.URL)
	rollout := func() {
		t.Helper()
		if out := kc.must(t, "rollout", "status", "deployment/shop", "--timeout=120s"); !strings.Contains(out, `deployment "shop" successfully rolled out`) {
			t.Fatalf("kubectl rollout status said %q", out)
		}
	}
	// images are the images of the shop's Running pods that are not on
	// their way out.
	images := func() []string {
		out := kc.must(t, "get", "pods", "-l", "app=shop", "-o",
			`jsonpath={range .items[?(@.status.phase=="Running")]}{.spec.containers[0].image} {.metadata.deletionTimestamp}{"\n"}{end}`)
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Fields(line); len(f) == 1 {
				got = append(got, f[0])
			}
		}
		slices.Sort(got)
		return got
	}
	running := func(image string, n int) {
		t.Helper()
		eventually(t, 60*time.Second, func() error {
			if got := images(); len(got) != n || slices.ContainsFunc(got, func(i string) bool { return i != image }) {
				return fmt.Errorf("the shop's Running pods run %v, want %d of %s", got, n, image)
			}
			return nil
		})
	}

	kc.must(t, "create", "deployment", "shop", "--image=nginx:1", "--replicas=3")
	rollout()
	running("nginx:1", 3)
	header, rows := table(t, kc.must(t, "get", "deployments"))
	if !slices.Equal(header, []string{"NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"}) || len(rows) != 1 || rows[0][1] != "3/3" {
		t.Errorf("kubectl get deployments: %q %q", header, rows)
	}

	kc.must(t, "set", "image", "deployment/shop", "nginx=nginx:2")
	rollout()
	running("nginx:2", 3)
	kc.must(t, "annotate", "deployment/shop", "kubernetes.io/change-cause=to nginx 3")
	// Annotated while revision 2 is current, the change-cause reaches it
	// too, as Kubernetes' Deployment controller copies it.
	eventually(t, 30*time.Second, func() error {
		if history := kc.must(t, "rollout", "history", "deployment/shop"); !strings.Contains(history, "2         to nginx 3") {
			return fmt.Errorf("kubectl rollout history lacks the change-cause on the current revision:\n%s", history)
		}
		return nil
	})
	kc.must(t, "set", "image", "deployment/shop", "nginx=nginx:3")
	rollout()
	history := kc.must(t, "rollout", "history", "deployment/shop")
	for _, want := range []string{"1         <none>", "2         to nginx 3", "3         to nginx 3"} {
		if !strings.Contains(history, want) {
			t.Errorf("kubectl rollout history lacks %q:\n%s", want, history)
		}
	}

	if out := kc.must(t, "rollout", "undo", "deployment/shop", "--to-revision=1"); !strings.Contains(out, "rolled back") {
		t.Errorf("kubectl rollout undo said %q", out)
	}
	rollout()
	running("nginx:1", 3)
	if out := kc.must(t, "get", "deployment", "shop", "-o", "jsonpath={.metadata.annotations.deployment\\.kubernetes\\.io/revision}"); out != "4" {
		t.Errorf("the revision after the undo: %q, want 4", out)
	}

	kc.must(t, "rollout", "pause", "deployment/shop")
	kc.must(t, "set", "image", "deployment/shop", "nginx=nginx:4")
	kc.must(t, "scale", "deployment/shop", "--replicas=4")
	running("nginx:1", 4) // scaled, not rolled out
	kc.must(t, "rollout", "resume", "deployment/shop")
	rollout()
	running("nginx:4", 4)
	kc.must(t, "rollout", "restart", "deployment/shop")
	rollout()
	// One ReplicaSet per template: nginx 1 to 4 and the restart's; the
	// undo brought nginx:1's back rather than make another.
	if got := kc.must(t, "get", "rs", "-l", "app=shop", "-o", "name"); len(strings.Fields(got)) != 5 {
		t.Errorf("the shop's ReplicaSets after five templates: %q, want 5", got)
	}

	kc.must(t, "delete", "deployment", "shop")
	eventually(t, 60*time.Second, func() error {
		rs := strings.TrimSpace(kc.must(t, "get", "rs", "-l", "app=shop", "-o", "name"))
		pods := strings.TrimSpace(kc.must(t, "get", "pods", "-l", "app=shop", "-o", "name"))
		if rs != "" || pods != "" {
			return fmt.Errorf("a deleted Deployment's ReplicaSets %q and pods %q are still there", rs, pods)
		}
		return nil
	})
}

// TestKubectlCascadingDeletion: kubectl delete --cascade=orphan leaves a
// Deployment's ReplicaSet and pods, or a Job's pods, running without it, and
// --cascade=foreground (of a Deployment, a ReplicaSet, a DaemonSet)
// returns only once the dependents are gone, as
// against Kubernetes' garbage collector.
func TestKubectlCascadingDeletion(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	kc := newKubectl(t, srv.URL)
	names := func(kind, selector string) []string {
		return strings.Fields(kc.must(t, "get", kind, "-l", selector, "-o", "name"))
	}
	kc.must(t, "create", "deployment", "keep", "--image=nginx", "--replicas=2")
	kc.must(t, "rollout", "status", "deployment/keep", "--timeout=120s")
	kc.must(t, "delete", "deployment", "keep", "--cascade=orphan")
	rss := names("rs", "app=keep")
	if len(rss) != 1 {
		t.Fatalf("after an orphaning delete: replicasets %v, want the one left", rss)
	}
	// Kept by nothing once the collector has taken its reference off,
	// still keeping its pods.
	eventually(t, 30*time.Second, func() error {
		if owners := kc.must(t, "get", rss[0], "-o", "jsonpath={.metadata.ownerReferences}"); owners != "" {
			return fmt.Errorf("the orphaned replicaset still names an owner: %s", owners)
		}
		return nil
	})
	if pods := names("pods", "app=keep"); len(pods) != 2 {
		t.Errorf("the orphaned replicaset's pods: %v, want 2", pods)
	}
	// kubectl waits for a foreground deletion to end: by then the pods
	// are gone.
	kc.must(t, "delete", rss[0], "--cascade=foreground", "--timeout=60s")
	if pods := names("pods", "app=keep"); len(pods) != 0 {
		t.Errorf("pods %v outlived a replicaset deleted in the foreground", pods)
	}

	// A Job's pods likewise.
	kc.must(t, "create", "job", "long", "--image=busybox", "--", "sleep", "600")
	eventually(t, 60*time.Second, func() error {
		if pods := names("pods", "job-name=long"); len(pods) != 1 {
			return fmt.Errorf("the job's pods: %v, want 1", pods)
		}
		return nil
	})
	kc.must(t, "delete", "job", "long", "--cascade=orphan")
	eventually(t, 30*time.Second, func() error {
		pods := names("pods", "job-name=long")
		if len(pods) != 1 {
			return fmt.Errorf("an orphaned job's pods: %v, want its one left", pods)
		}
		if owners := kc.must(t, "get", pods[0], "-o", "jsonpath={.metadata.ownerReferences}"); owners != "" {
			return fmt.Errorf("the orphaned job's pod still names an owner: %s", owners)
		}
		return nil
	})

	kc.must(t, "create", "deployment", "fg", "--image=nginx", "--replicas=2")
	kc.must(t, "rollout", "status", "deployment/fg", "--timeout=120s")
	kc.must(t, "delete", "deployment", "fg", "--cascade=foreground", "--timeout=60s")
	if rs, pods := names("rs", "app=fg"), names("pods", "app=fg"); len(rs)+len(pods) != 0 {
		t.Errorf("replicasets %v and pods %v outlived a deployment deleted in the foreground", rs, pods)
	}

	// A DaemonSet's pods likewise (the demo's log-shipper, on both nodes).
	eventually(t, 60*time.Second, func() error {
		if pods := strings.Fields(kc.must(t, "get", "pods", "-n", "demo", "-l", "app=log-shipper", "-o", "name")); len(pods) != 2 {
			return fmt.Errorf("the demo DaemonSet's pods: %v, want one on each of 2 nodes", pods)
		}
		return nil
	})
	kc.must(t, "delete", "ds", "log-shipper", "-n", "demo", "--cascade=foreground", "--timeout=60s")
	if pods := strings.Fields(kc.must(t, "get", "pods", "-n", "demo", "-l", "app=log-shipper", "-o", "name")); len(pods) != 0 {
		t.Errorf("pods %v outlived a daemonset deleted in the foreground", pods)
	}
}
