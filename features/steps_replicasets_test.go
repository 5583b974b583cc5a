package features

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"

	"github.com/cucumber/godog"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// replicaSetsPath is where the default namespace's ReplicaSets are.
const replicaSetsPath = "/apis/apps/v1/namespaces/default/replicasets"

func (w *world) registerReplicaSetSteps(sc *godog.ScenarioContext) {
	sc.Step(`^ReplicaSet "([^"]+)" keeps (\d+) pods? labelled app=([\w-]+)$`, w.replicaSetKeeps)
	sc.Step(`^ReplicaSet "([^"]+)" is scaled to (\d+)$`, w.replicaSetScaled)
	sc.Step(`^ReplicaSet "([^"]+)" is deleted$`, w.replicaSetDeleted)
	sc.Step(`^ReplicaSet "([^"]+)" has (\d+) pods? Running$`, w.replicaSetHasRunning)
	sc.Step(`^ReplicaSet "([^"]+)" has (\d+) pods? Running, none on "([^"]+)"$`, w.replicaSetHasRunningNoneOn)
	sc.Step(`^ReplicaSet "([^"]+)" has no pods$`, w.replicaSetHasNoPods)
	sc.Step(`^ReplicaSet "([^"]+)" counts (\d+) ready replicas?$`, w.replicaSetCountsReady)
}

// replicaSetCountsReady waits until the ReplicaSet's status, as kubectl
// reads it, counts n ready replicas.
func (w *world) replicaSetCountsReady(name string, n int) error {
	return eventually(fmt.Sprintf("ReplicaSet %s counts %d ready", name, n), func() error {
		var rs appsv1.ReplicaSet
		if err := w.get(replicaSetsPath+"/"+url.PathEscape(name), &rs); err != nil {
			return err
		}
		if int(rs.Status.ReadyReplicas) != n {
			return fmt.Errorf("ReplicaSet %s counts %d ready of %d, want %d ready", name, rs.Status.ReadyReplicas, rs.Status.Replicas, n)
		}
		return nil
	})
}

// replicaSetKeeps creates a ReplicaSet of n pods of one container.
func (w *world) replicaSetKeeps(name string, n int, app string) error {
	replicas := int32(n) //nolint:gosec // a scenario's small number
	labels := map[string]string{"app": app}
	rs := appsv1.ReplicaSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
			},
		},
	}
	return w.writeJSON(http.MethodPost, replicaSetsPath, "application/json", rs)
}

func (w *world) replicaSetScaled(name string, n int) error {
	return w.writeJSON(http.MethodPatch, replicaSetsPath+"/"+url.PathEscape(name)+"/scale", "application/merge-patch+json",
		map[string]any{"spec": map[string]any{"replicas": n}})
}

func (w *world) replicaSetDeleted(name string) error {
	return w.mustWrite(http.MethodDelete, replicaSetsPath+"/"+url.PathEscape(name), "", nil)
}

// replicaSetPods are the pods the ReplicaSet controls that are not on
// their way out.
func (w *world) replicaSetPods(name string) ([]corev1.Pod, error) {
	var list corev1.PodList
	if err := w.get("/api/v1/namespaces/default/pods", &list); err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if c := metav1.GetControllerOf(&p); c != nil && c.Kind == "ReplicaSet" && c.Name == name && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

func (w *world) replicaSetHasRunning(name string, n int) error {
	return w.replicaSetHasRunningNoneOn(name, n, "")
}

func (w *world) replicaSetHasRunningNoneOn(name string, n int, node string) error {
	pods, err := w.replicaSetPods(name)
	if err != nil {
		return err
	}
	var seen []string
	running := 0
	for _, p := range pods {
		seen = append(seen, fmt.Sprintf("%s %s on %q", p.Name, p.Status.Phase, p.Spec.NodeName))
		if p.Status.Phase == corev1.PodRunning && (node == "" || p.Spec.NodeName != node) {
			running++
		}
	}
	sort.Strings(seen)
	if running != n || len(pods) != n {
		return fmt.Errorf("ReplicaSet %s has %d pods Running (not on %q) of %d: %v; want %d", name, running, node, len(pods), seen, n)
	}
	return nil
}

func (w *world) replicaSetHasNoPods(name string) error {
	pods, err := w.replicaSetPods(name)
	if err != nil {
		return err
	}
	if len(pods) > 0 {
		return fmt.Errorf("ReplicaSet %s still has %d pods", name, len(pods))
	}
	return nil
}
