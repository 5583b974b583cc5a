package features

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cucumber/godog"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"herd/domain"
)

// deploymentsPath is where the default namespace's Deployments are.
const deploymentsPath = "/apis/apps/v1/namespaces/default/deployments"

func (w *world) registerDeploymentSteps(sc *godog.ScenarioContext) {
	sc.Step(`^Deployment "([^"]+)" runs (\d+) pods? of image "([^"]+)" with a surge of (\d+) and none unavailable$`, w.deploymentRuns)
	sc.Step(`^the image of Deployment "([^"]+)" is set to "([^"]+)"$`, w.deploymentImageSet)
	sc.Step(`^Deployment "([^"]+)" is rolled back to revision (\d+)$`, w.deploymentRolledBack)
	sc.Step(`^Deployment "([^"]+)" is deleted with propagation (Foreground|Background|Orphan)$`, w.deploymentDeleted)
	sc.Step(`^Deployment "([^"]+)" has (\d+) pods? of image "([^"]+)" Running$`, w.deploymentHasRunning)
	sc.Step(`^the pods of Deployment "([^"]+)" are set to need a node labelled "([^"=]+)=([^"]*)"$`, w.deploymentNodeSelectorSet)
	sc.Step(`^Deployment "([^"]+)" is scaled to (\d+) replicas?$`, w.deploymentScaled)
	sc.Step(`^Deployment "([^"]+)" has (\d+) pods? Running and (\d+) Pending$`, w.deploymentHasRunningAndPending)
	sc.Step(`^Deployment "([^"]+)" is at revision (\d+), its rollout complete$`, w.deploymentAtRevision)
	sc.Step(`^Deployment "([^"]+)" has (\d+) ReplicaSets?$`, w.deploymentHasReplicaSets)
	sc.Step(`^the log shows the ReplicaSets of Deployment "([^"]+)" never asked for more than (\d+) pods together$`, w.deploymentNeverAskedMore)
	sc.Step(`^Deployment "([^"]+)" is gone, with its ReplicaSets and pods$`, w.deploymentGoneWithDependents)
	sc.Step(`^Deployment "([^"]+)" is gone, its ReplicaSet kept by nothing and its (\d+) pods still Running$`, w.deploymentGoneOrphaning)
}

func (w *world) deploymentRuns(name string, n int, image string, surge int) error {
	replicas := int32(n) //nolint:gosec // a scenario's small number
	labels := map[string]string{"app": name}
	s, u := intstr.FromInt(surge), intstr.FromInt(0)
	d := appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &s, MaxUnavailable: &u}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image}}},
			},
		},
	}
	return w.writeJSON(http.MethodPost, deploymentsPath, "application/json", d)
}

// deploymentImageSet is kubectl set image's strategic merge patch.
func (w *world) deploymentImageSet(name, image string) error {
	return w.writeJSON(http.MethodPatch, deploymentsPath+"/"+url.PathEscape(name), "application/strategic-merge-patch+json",
		map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []map[string]any{{"name": "main", "image": image}}}}}})
}

// deploymentNodeSelectorSet gives the Deployment's pods a node selector,
// as kubectl patch would: a new template, rolled out as any other.
func (w *world) deploymentNodeSelectorSet(name, key, value string) error {
	return w.writeJSON(http.MethodPatch, deploymentsPath+"/"+url.PathEscape(name), "application/strategic-merge-patch+json",
		map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"nodeSelector": map[string]string{key: value}}}}})
}

// deploymentScaled is kubectl scale: a merge patch of the scale
// subresource.
func (w *world) deploymentScaled(name string, replicas int) error {
	return w.writeJSON(http.MethodPatch, deploymentsPath+"/"+url.PathEscape(name)+"/scale", "application/merge-patch+json",
		map[string]any{"spec": map[string]any{"replicas": replicas}})
}

// deploymentHasRunningAndPending: the Deployment's pods are running
// Running and pending Pending, and no other.
func (w *world) deploymentHasRunningAndPending(name string, running, pending int) error {
	pods, err := w.deploymentPods(name)
	if err != nil {
		return err
	}
	var seen []string
	count := map[corev1.PodPhase]int{}
	for _, p := range pods {
		seen = append(seen, fmt.Sprintf("%s %s", p.Name, p.Status.Phase))
		count[p.Status.Phase]++
	}
	if count[corev1.PodRunning] != running || count[corev1.PodPending] != pending || len(pods) != running+pending {
		return fmt.Errorf("deployment %s has pods %v; want %d Running and %d Pending", name, seen, running, pending)
	}
	return nil
}

// deploymentReplicaSets are the ReplicaSets the Deployment controls.
func (w *world) deploymentReplicaSets(name string) ([]appsv1.ReplicaSet, error) {
	var list appsv1.ReplicaSetList
	if err := w.get(replicaSetsPath, &list); err != nil {
		return nil, err
	}
	var out []appsv1.ReplicaSet
	for _, rs := range list.Items {
		if c := metav1.GetControllerOf(&rs); c != nil && c.Kind == "Deployment" && c.Name == name {
			out = append(out, rs)
		}
	}
	return out, nil
}

// deploymentRolledBack does what kubectl rollout undo --to-revision does:
// it replaces the Deployment's template by that of the revision's
// ReplicaSet, its pod-template-hash label left out, with a JSON patch.
func (w *world) deploymentRolledBack(name string, revision int) error {
	rss, err := w.deploymentReplicaSets(name)
	if err != nil {
		return err
	}
	for _, rs := range rss {
		if rs.Annotations[domain.RevisionAnnotation] != fmt.Sprint(revision) {
			continue
		}
		tmpl := rs.Spec.Template.DeepCopy()
		delete(tmpl.Labels, domain.PodTemplateHashLabel)
		return w.writeJSON(http.MethodPatch, deploymentsPath+"/"+url.PathEscape(name), "application/json-patch+json",
			[]map[string]any{{"op": "replace", "path": "/spec/template", "value": tmpl}})
	}
	return fmt.Errorf("deployment %s has no revision %d", name, revision)
}

func (w *world) deploymentDeleted(name, propagation string) error {
	body, err := json.Marshal(metav1.DeleteOptions{PropagationPolicy: (*metav1.DeletionPropagation)(&propagation)})
	if err != nil {
		return err
	}
	if err := w.mustWrite(http.MethodDelete, deploymentsPath+"/"+url.PathEscape(name), "application/json", body); err != nil {
		return err
	}
	return w.settle()
}

// deploymentPods are the pods of the Deployment's ReplicaSets that are
// not on their way out.
func (w *world) deploymentPods(name string) ([]corev1.Pod, error) {
	rss, err := w.deploymentReplicaSets(name)
	if err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for _, rs := range rss {
		pods, err := w.replicaSetPods(rs.Name)
		if err != nil {
			return nil, err
		}
		out = append(out, pods...)
	}
	return out, nil
}

func (w *world) deploymentHasRunning(name string, n int, image string) error {
	pods, err := w.deploymentPods(name)
	if err != nil {
		return err
	}
	var seen []string
	running := 0
	for _, p := range pods {
		seen = append(seen, fmt.Sprintf("%s %s %s", p.Name, p.Spec.Containers[0].Image, p.Status.Phase))
		if p.Status.Phase == corev1.PodRunning && p.Spec.Containers[0].Image == image {
			running++
		}
	}
	if running != n || len(pods) != n {
		return fmt.Errorf("deployment %s has %d pods of %s Running of %d: %v; want %d", name, running, image, len(pods), seen, n)
	}
	return nil
}

func (w *world) deploymentAtRevision(name string, revision int) error {
	var d appsv1.Deployment
	if err := w.get(deploymentsPath+"/"+url.PathEscape(name), &d); err != nil {
		return err
	}
	if got := d.Annotations[domain.RevisionAnnotation]; got != fmt.Sprint(revision) {
		return fmt.Errorf("deployment %s is at revision %q, want %d", name, got, revision)
	}
	for _, c := range d.Status.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Reason == "NewReplicaSetAvailable" && d.Status.ObservedGeneration == d.Generation {
			return nil
		}
	}
	return fmt.Errorf("deployment %s's rollout is not complete: %+v", name, d.Status)
}

func (w *world) deploymentHasReplicaSets(name string, n int) error {
	rss, err := w.deploymentReplicaSets(name)
	if err != nil {
		return err
	}
	if len(rss) != n {
		return fmt.Errorf("deployment %s has %d ReplicaSets, want %d", name, len(rss), n)
	}
	return nil
}

// deploymentNeverAskedMore reads the log event by event: the replicas
// each of the Deployment's ReplicaSets asked for, summed after every
// event, never went above most.
func (w *world) deploymentNeverAskedMore(name string, most int) error {
	recs, err := w.log.ReadAfter(context.Background(), 0, 1_000_000)
	if err != nil {
		return err
	}
	prefix := domain.ReplicaSetStream("default", name+"-")
	asked := map[string]int32{}
	var top int32
	for _, rec := range recs {
		if !strings.HasPrefix(rec.Stream, prefix) {
			continue
		}
		switch rec.Type {
		case "ReplicaSetCreated":
			var ev domain.ReplicaSetCreated
			if err := json.Unmarshal(rec.Payload, &ev); err != nil {
				return err
			}
			asked[rec.Stream] = ev.Spec.Replicas
		case "ReplicaSetChanged":
			var ev domain.ReplicaSetChanged
			if err := json.Unmarshal(rec.Payload, &ev); err != nil {
				return err
			}
			asked[rec.Stream] = ev.Spec.Replicas
		default:
			continue
		}
		var sum int32
		for _, n := range asked {
			sum += n
		}
		top = max(top, sum)
	}
	if len(asked) < 2 || top > int32(most) { //nolint:gosec // a scenario's small number
		return fmt.Errorf("the ReplicaSets %v of deployment %s asked for up to %d pods together, want at most %d over two or more", asked, name, top, most)
	}
	return nil
}

func (w *world) deploymentGoneWithDependents(name string) error {
	r, err := w.do(http.MethodGet, deploymentsPath+"/"+url.PathEscape(name), "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusNotFound {
		return fmt.Errorf("deployment %s is still there: %s", name, r)
	}
	var rss appsv1.ReplicaSetList
	if err := w.get(replicaSetsPath, &rss); err != nil {
		return err
	}
	var pods corev1.PodList
	if err := w.get("/api/v1/namespaces/default/pods", &pods); err != nil {
		return err
	}
	if len(rss.Items)+len(pods.Items) > 0 {
		return fmt.Errorf("deployment %s is gone, but %d ReplicaSets and %d pods are left", name, len(rss.Items), len(pods.Items))
	}
	return nil
}

func (w *world) deploymentGoneOrphaning(name string, n int) error {
	r, err := w.do(http.MethodGet, deploymentsPath+"/"+url.PathEscape(name), "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusNotFound {
		return fmt.Errorf("deployment %s is still there: %s", name, r)
	}
	var rss appsv1.ReplicaSetList
	if err := w.get(replicaSetsPath, &rss); err != nil {
		return err
	}
	if len(rss.Items) != 1 || len(rss.Items[0].OwnerReferences) != 0 {
		return fmt.Errorf("replicasets after an orphaning delete: %+v, want one kept by nothing", rss.Items)
	}
	pods, err := w.replicaSetPods(rss.Items[0].Name)
	if err != nil {
		return err
	}
	running := slices.DeleteFunc(pods, func(p corev1.Pod) bool { return p.Status.Phase != corev1.PodRunning })
	if len(running) != n {
		return fmt.Errorf("the orphaned replicaset has %d pods Running, want %d", len(running), n)
	}
	return nil
}
