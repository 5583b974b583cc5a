package features

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cucumber/godog"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// daemonSetsPath is where the default namespace's DaemonSets are.
const daemonSetsPath = "/apis/apps/v1/namespaces/default/daemonsets"

func (w *world) registerDaemonSetSteps(sc *godog.ScenarioContext) {
	sc.Step(`^DaemonSet "([^"]+)" runs pods labelled app=([\w-]+) on every node$`, w.daemonSetRunsEverywhere)
	sc.Step(`^DaemonSet "([^"]+)" runs pods labelled app=([\w-]+) on nodes with ([\w./-]+)=([\w.-]+)$`, w.daemonSetRunsOn)
	sc.Step(`^DaemonSet "([^"]+)" has a Running pod on each of "([^"]*)" and no other$`, w.daemonSetRunsOnEach)
	sc.Step(`^DaemonSet "([^"]+)" has a Running pod of "([^"]+)" on each of "([^"]*)" and no other$`, w.daemonSetRunsImageOnEach)
	sc.Step(`^DaemonSet "([^"]+)" shows (\d+) desired, (\d+) current, (\d+) ready, (\d+) up to date, (\d+) available$`, w.daemonSetShows)
	sc.Step(`^DaemonSet "([^"]+)" is given the image "([^"]+)"$`, w.daemonSetGivenImage)
	sc.Step(`^DaemonSet "([^"]+)" is deleted$`, w.daemonSetDeleted)
	sc.Step(`^DaemonSet "([^"]+)" has no pods$`, w.daemonSetHasNoPods)
}

func (w *world) daemonSetRunsEverywhere(name, app string) error {
	return w.daemonSetRunsOn(name, app, "", "")
}

// daemonSetRunsOn creates a DaemonSet of one container, on the nodes
// whose label key is value, or every node when key is empty.
func (w *world) daemonSetRunsOn(name, app, key, value string) error {
	labels := map[string]string{"app": app}
	ds := appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "fluent-bit:3"}}},
			},
		},
	}
	if key != "" {
		ds.Spec.Template.Spec.NodeSelector = map[string]string{key: value}
	}
	return w.writeJSON(http.MethodPost, daemonSetsPath, "application/json", ds)
}

// daemonSetPods are the pods the DaemonSet controls that are not on
// their way out.
func (w *world) daemonSetPods(name string) ([]corev1.Pod, error) {
	var list corev1.PodList
	if err := w.get("/api/v1/namespaces/default/pods", &list); err != nil {
		return nil, err
	}
	var out []corev1.Pod
	for _, p := range list.Items {
		if c := metav1.GetControllerOf(&p); c != nil && c.Kind == "DaemonSet" && c.Name == name && p.DeletionTimestamp == nil {
			out = append(out, p)
		}
	}
	return out, nil
}

func (w *world) daemonSetRunsOnEach(name, nodes string) error {
	return w.daemonSetRunsImageOnEach(name, "", nodes)
}

// daemonSetRunsImageOnEach checks that the DaemonSet has exactly one
// pod on each of nodes, Running (with image, when given), and none on
// any other node.
func (w *world) daemonSetRunsImageOnEach(name, image, nodes string) error {
	pods, err := w.daemonSetPods(name)
	if err != nil {
		return err
	}
	var want, got, seen []string
	for _, n := range strings.Split(nodes, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want = append(want, n)
		}
	}
	for _, p := range pods {
		seen = append(seen, fmt.Sprintf("%s %s on %q (%s)", p.Name, p.Status.Phase, p.Spec.NodeName, p.Spec.Containers[0].Image))
		if p.Status.Phase == corev1.PodRunning && (image == "" || p.Spec.Containers[0].Image == image) {
			got = append(got, p.Spec.NodeName)
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) || len(pods) != len(want) {
		slices.Sort(seen)
		return fmt.Errorf("DaemonSet %s has pods %v; want one Running on each of %v", name, seen, want)
	}
	return nil
}

func (w *world) daemonSetShows(name string, desired, current, ready, updated, available int) error {
	var ds appsv1.DaemonSet
	if err := w.get(daemonSetsPath+"/"+url.PathEscape(name), &ds); err != nil {
		return err
	}
	st := ds.Status
	got := []int32{st.DesiredNumberScheduled, st.CurrentNumberScheduled, st.NumberReady, st.UpdatedNumberScheduled, st.NumberAvailable}
	want := []int32{int32(desired), int32(current), int32(ready), int32(updated), int32(available)} //nolint:gosec // a scenario's small numbers
	if !slices.Equal(got, want) || st.ObservedGeneration != ds.Generation {
		return fmt.Errorf("DaemonSet %s shows %+v at generation %d, want desired, current, ready, up to date, available %v", name, st, ds.Generation, want)
	}
	return nil
}

func (w *world) daemonSetGivenImage(name, image string) error {
	return w.writeJSON(http.MethodPatch, daemonSetsPath+"/"+url.PathEscape(name), "application/strategic-merge-patch+json",
		map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{
			"containers": []map[string]any{{"name": "main", "image": image}}}}}})
}

func (w *world) daemonSetDeleted(name string) error {
	return w.mustWrite(http.MethodDelete, daemonSetsPath+"/"+url.PathEscape(name), "", nil)
}

func (w *world) daemonSetHasNoPods(name string) error {
	pods, err := w.daemonSetPods(name)
	if err != nil {
		return err
	}
	if len(pods) > 0 {
		return fmt.Errorf("DaemonSet %s still has %d pods", name, len(pods))
	}
	return nil
}
