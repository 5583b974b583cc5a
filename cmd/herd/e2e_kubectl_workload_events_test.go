package main

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestKubectlWorkloadEvents: kubectl describe shows the Events the
// workload controllers write, in Kubernetes' reasons and words: the
// Deployment's ScalingReplicaSet as it creates and scales its
// ReplicaSet, the ReplicaSet's SuccessfulCreate and SuccessfulDelete of
// its pods, and a Job's SuccessfulCreate and Completed. A change-cause
// annotated on a Deployment after its rollout shows on its current
// revision in kubectl rollout history, as Kubernetes carries it over.
func TestKubectlWorkloadEvents(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	kc := newKubectl(t, srv.URL)
	describes := func(what string, want ...string) {
		t.Helper()
		eventually(t, 60*time.Second, func() error {
			out := kc.must(t, "describe", what)
			for _, w := range want {
				if !strings.Contains(out, w) {
					return fmt.Errorf("kubectl describe %s lacks %q:\n%s", what, w, out)
				}
			}
			return nil
		})
	}

	kc.must(t, "create", "deployment", "web", "--image=nginx:1", "--replicas=2")
	kc.must(t, "rollout", "status", "deployment/web", "--timeout=120s")
	kc.must(t, "annotate", "deployment/web", "kubernetes.io/change-cause=first release")
	eventually(t, 60*time.Second, func() error {
		if history := kc.must(t, "rollout", "history", "deployment/web"); !strings.Contains(history, "1         first release") {
			return fmt.Errorf("kubectl rollout history lacks the change-cause annotated after the rollout:\n%s", history)
		}
		return nil
	})

	rs := strings.TrimPrefix(strings.TrimSpace(kc.must(t, "get", "rs", "-l", "app=web", "-o", "name")), "replicaset.apps/")
	if rs == "" || strings.Contains(rs, "\n") {
		t.Fatalf("the Deployment's ReplicaSets: %q, want one", rs)
	}
	describes("deployment/web", "ScalingReplicaSet", "deployment-controller", "Scaled up replica set "+rs+" from 0 to 2")
	describes("rs/"+rs, "SuccessfulCreate", "replicaset-controller", "Created pod: "+rs+"-")

	kc.must(t, "scale", "deployment/web", "--replicas=1")
	describes("deployment/web", "Scaled down replica set "+rs+" from 2 to 1")
	describes("rs/"+rs, "SuccessfulDelete", "Deleted pod: "+rs+"-")

	kc.must(t, "create", "job", "pi", "--image=busybox", "--", "sh", "-c", "sleep 1; exit 0")
	describes("job/pi", "SuccessfulCreate", "job-controller", "Created pod: pi-", "Completed", "Job completed")

	// The Events are listed as any others, about the right object.
	if out := kc.must(t, "get", "events", "--field-selector", "involvedObject.kind=Job,involvedObject.name=pi", "-o", "jsonpath={.items[*].reason}"); !strings.Contains(out, "Completed") {
		t.Errorf("the Job's events listed: %q, want Completed among them", out)
	}
}
