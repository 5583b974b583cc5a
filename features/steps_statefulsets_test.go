package features

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/cucumber/godog"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
	"herd/reconcilers/statefulset"
)

// statefulSetsPath is where the default namespace's StatefulSets are.
const statefulSetsPath = "/apis/apps/v1/namespaces/default/statefulsets"

func (w *world) registerStatefulSetSteps(sc *godog.ScenarioContext) {
	sc.Step(`^StatefulSet "([^"]+)" keeps (\d+) pods of "([^"]+)"$`, w.statefulSetKeeps)
	sc.Step(`^StatefulSet "([^"]+)" keeps (\d+) pods of "([^"]+)" started in parallel$`, func(name string, n int, image string) error {
		return w.statefulSetKeepsAs(name, n, image, appsv1.ParallelPodManagement)
	})
	sc.Step(`^StatefulSet "([^"]+)" has these pods Running:$`, w.statefulSetHasPods)
	sc.Step(`^StatefulSet "([^"]+)" is given the image "([^"]+)" with (\S+) of its pods unavailable at a time$`, w.statefulSetGivenImageUnavailable)
	sc.Step(`^the rollout of StatefulSet "([^"]+)" had at most (\d+) of its pods unavailable at a time, and (\d+) at times$`, w.statefulSetRolloutUnavailable)
	sc.Step(`^StatefulSet "([^"]+)" made its pods in the order "([^"]*)"$`, func(name, order string) error {
		return w.statefulSetPodsInOrder(name, "PodCreated", order)
	})
	sc.Step(`^StatefulSet "([^"]+)" removed its pods in the order "([^"]*)"$`, func(name, order string) error {
		return w.statefulSetPodsInOrder(name, "PodDeletionRequested", order)
	})
	sc.Step(`^StatefulSet "([^"]+)" is scaled to (\d+)$`, w.statefulSetScaled)
	sc.Step(`^StatefulSet "([^"]+)" is given the image "([^"]+)" from ordinal (\d+) up$`, w.statefulSetGivenImage)
	sc.Step(`^pod "([^"]+)" of StatefulSet "([^"]+)" is lost$`, w.statefulSetPodLost)
	sc.Step(`^an operator undoes the last rollout of StatefulSet "([^"]+)"$`, w.statefulSetUndo)
	sc.Step(`^StatefulSet "([^"]+)" has revisions "([^"]*)"$`, w.statefulSetHasRevisions)
	sc.Step(`^an operator deletes the newest revision of StatefulSet "([^"]+)"$`, w.statefulSetRevisionDeleted)
}

// statefulSetKeeps creates a StatefulSet of n pods of one container of
// image, labelled app=NAME, with apps/v1's defaults (OrderedReady, a
// rolling update from partition 0), as kubectl apply posts it.
func (w *world) statefulSetKeeps(name string, n int, image string) error {
	return w.statefulSetKeepsAs(name, n, image, "")
}

// statefulSetKeepsAs is statefulSetKeeps with a pod management policy
// ("" for apps/v1's default).
func (w *world) statefulSetKeepsAs(name string, n int, image string, policy appsv1.PodManagementPolicyType) error {
	labels := map[string]string{"app": name}
	replicas := int32(n) //nolint:gosec // a scenario's small number
	s := appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.StatefulSetSpec{Replicas: &replicas, ServiceName: name, PodManagementPolicy: policy,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: image}}}}},
	}
	return w.writeJSON(http.MethodPost, statefulSetsPath, "application/json", s)
}

// statefulSetPods are the pods the StatefulSet controls that are not on
// their way out, by name.
func (w *world) statefulSetPods(name string) ([]corev1.Pod, error) {
	var list corev1.PodList
	if err := w.get("/api/v1/namespaces/default/pods", &list); err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if c := metav1.GetControllerOf(&p); c != nil && c.Kind == "StatefulSet" && c.Name == name && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// statefulSetHasPods checks that the StatefulSet's pods are exactly those
// of the table, each Running and Ready with its image.
func (w *world) statefulSetHasPods(name string, table *godog.Table) error {
	pods, err := w.statefulSetPods(name)
	if err != nil {
		return err
	}
	var want, got []string
	for _, row := range table.Rows[1:] {
		want = append(want, row.Cells[0].Value+" "+row.Cells[1].Value+" Running Ready")
	}
	for _, p := range pods {
		ready := "NotReady"
		for _, c := range p.Status.Conditions {
			if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
				ready = "Ready"
			}
		}
		got = append(got, fmt.Sprintf("%s %s %s %s", p.Name, p.Spec.Containers[0].Image, p.Status.Phase, ready))
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("StatefulSet %s has pods %q, want %q", name, got, want)
	}
	return nil
}

// statefulSetPodsInOrder reads the log: the StatefulSet's pods had events
// of type typ (their creation, their removal) in the order given, and no
// other of them had one.
func (w *world) statefulSetPodsInOrder(name, typ, order string) error {
	recs, err := w.log.ReadAfter(context.Background(), 0, 0)
	if err != nil {
		return err
	}
	var got []string
	for _, rec := range recs {
		if rec.Type != typ {
			continue
		}
		if key, ok := domain.PodAggregate.Key(rec.Stream); ok {
			if _, ok := statefulset.Ordinal(name, strings.TrimPrefix(key, "default/")); ok && strings.HasPrefix(key, "default/") {
				got = append(got, strings.TrimPrefix(key, "default/"))
			}
		}
	}
	if want := strings.Split(order, ", "); !slices.Equal(got, want) {
		return fmt.Errorf("StatefulSet %s's pods had %s in the order %q, want %q", name, typ, got, want)
	}
	return nil
}

func (w *world) statefulSetScaled(name string, n int) error {
	return w.writeJSON(http.MethodPatch, statefulSetsPath+"/"+url.PathEscape(name)+"/scale", "application/merge-patch+json",
		map[string]any{"spec": map[string]any{"replicas": n}})
}

// statefulSetGivenImage sets the image of the StatefulSet's template and
// its partition in one patch, as an operator holding a rollout does.
func (w *world) statefulSetGivenImage(name, image string, partition int) error {
	return w.writeJSON(http.MethodPatch, statefulSetsPath+"/"+url.PathEscape(name), "application/strategic-merge-patch+json",
		map[string]any{"spec": map[string]any{
			"updateStrategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"partition": partition}},
			"template":       map[string]any{"spec": map[string]any{"containers": []map[string]any{{"name": "main", "image": image}}}}}})
}

// statefulSetGivenImageUnavailable sets the image of the StatefulSet's
// template and its rolling update's maxUnavailable (a number, or a
// percentage such as "50%") in one patch.
func (w *world) statefulSetGivenImageUnavailable(name, image, unavailable string) error {
	var bound any = unavailable
	if n, err := strconv.Atoi(unavailable); err == nil {
		bound = n
	}
	return w.writeJSON(http.MethodPatch, statefulSetsPath+"/"+url.PathEscape(name), "application/strategic-merge-patch+json",
		map[string]any{"spec": map[string]any{
			"updateStrategy": map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"maxUnavailable": bound}},
			"template":       map[string]any{"spec": map[string]any{"containers": []map[string]any{{"name": "main", "image": image}}}}}})
}

// statefulSetRolloutUnavailable reads the log from the StatefulSet's last
// change of spec: how many of its ordinals had no available pod (one
// being deleted, or made and not yet reported Ready) at each event, at
// most, must be most, and must have been reached.
func (w *world) statefulSetRolloutUnavailable(name string, most, reached int) error {
	recs, err := w.log.ReadAfter(context.Background(), 0, 0)
	if err != nil {
		return err
	}
	from := -1
	for i, rec := range recs {
		if rec.Stream == domain.StatefulSetAggregate.Stream("default/"+name) && rec.Type == (domain.StatefulSetChanged{}).EventType() {
			from = i
		}
	}
	if from < 0 {
		return fmt.Errorf("StatefulSet %s's spec never changed", name)
	}
	down, peak := map[string]bool{}, 0
	for _, rec := range recs[from:] {
		key, ok := domain.PodAggregate.Key(rec.Stream)
		pod := strings.TrimPrefix(key, "default/")
		if _, ours := statefulset.Ordinal(name, pod); !ok || !ours || !strings.HasPrefix(key, "default/") {
			continue
		}
		switch rec.Type {
		case domain.PodDeletionRequested{}.EventType(), domain.PodCreated{}.EventType():
			down[pod] = true
		case domain.PodStatusUpdated{}.EventType():
			ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
			if err != nil {
				return err
			}
			ready := slices.ContainsFunc(ev.(domain.PodStatusUpdated).Status.Conditions, func(c domain.PodCondition) bool {
				return c.Type == domain.PodConditionReady && c.Status == domain.ConditionTrue
			})
			if ready && down[pod] {
				delete(down, pod)
			}
		}
		peak = max(peak, len(down))
	}
	if peak > most || peak < reached {
		return fmt.Errorf("StatefulSet %s's rollout had at most %d of its pods unavailable at a time, want at most %d and %d at times", name, peak, most, reached)
	}
	return nil
}

// statefulSetPodLost deletes one of the StatefulSet's pods at once, as a
// node that lost it would have it.
func (w *world) statefulSetPodLost(pod, _ string) error {
	return w.mustWrite(http.MethodDelete, "/api/v1/namespaces/default/pods/"+url.PathEscape(pod)+"?gracePeriodSeconds=0", "", nil)
}

// statefulSetRevisions are the ControllerRevisions the StatefulSet
// controls, by number, as kubectl rollout history finds them: those of
// its selector whose controller is the StatefulSet.
func (w *world) statefulSetRevisions(name string) ([]appsv1.ControllerRevision, error) {
	var s appsv1.StatefulSet
	if err := w.get(statefulSetsPath+"/"+url.PathEscape(name), &s); err != nil {
		return nil, err
	}
	var list appsv1.ControllerRevisionList
	if err := w.get("/apis/apps/v1/namespaces/default/controllerrevisions?labelSelector="+url.QueryEscape(metav1.FormatLabelSelector(s.Spec.Selector)), &list); err != nil {
		return nil, err
	}
	var out []appsv1.ControllerRevision
	for _, r := range list.Items {
		if c := metav1.GetControllerOf(&r); c != nil && c.UID == s.UID {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b appsv1.ControllerRevision) int { return int(a.Revision - b.Revision) })
	return out, nil
}

func (w *world) statefulSetHasRevisions(name, want string) error {
	revs, err := w.statefulSetRevisions(name)
	if err != nil {
		return err
	}
	var got []string
	for _, r := range revs {
		got = append(got, strconv.FormatInt(r.Revision, 10))
	}
	if strings.Join(got, ", ") != want {
		return fmt.Errorf("StatefulSet %s has revisions %q, want %q", name, strings.Join(got, ", "), want)
	}
	return nil
}

// statefulSetUndo does what kubectl rollout undo does: it takes the
// revision before the newest and patches the StatefulSet with its data,
// a strategic merge patch that replaces the template.
func (w *world) statefulSetUndo(name string) error {
	revs, err := w.statefulSetRevisions(name)
	if err != nil {
		return err
	}
	if len(revs) < 2 {
		return fmt.Errorf("StatefulSet %s has %d revisions, nothing to undo", name, len(revs))
	}
	return w.mustWrite(http.MethodPatch, statefulSetsPath+"/"+url.PathEscape(name), "application/strategic-merge-patch+json", revs[len(revs)-2].Data.Raw)
}

// statefulSetRevisionDeleted deletes the newest of the StatefulSet's
// revisions by hand, as kubectl delete controllerrevision does.
func (w *world) statefulSetRevisionDeleted(name string) error {
	revs, err := w.statefulSetRevisions(name)
	if err != nil || len(revs) == 0 {
		return err
	}
	return w.mustWrite(http.MethodDelete, "/apis/apps/v1/namespaces/default/controllerrevisions/"+url.PathEscape(revs[len(revs)-1].Name), "", nil)
}
