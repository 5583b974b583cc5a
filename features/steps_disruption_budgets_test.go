package features

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// budgetsPath is where the default namespace's disruption budgets are.
const budgetsPath = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"

func (w *world) registerDisruptionBudgetSteps(sc *godog.ScenarioContext) {
	sc.Step(`^a PodDisruptionBudget "([^"]+)" lets at most (\d+) pods? labelled app=([\w-]+) be unavailable$`, w.budgetMaxUnavailable)
	sc.Step(`^PodDisruptionBudget "([^"]+)" allows (\d+) disruptions?$`, w.budgetAllows)
	sc.Step(`^a client evicts (?:a|another) pod of ReplicaSet "([^"]+)"$`, w.evictsPodOf)
	sc.Step(`^the eviction is accepted$`, w.evictionAccepted)
	sc.Step(`^the pod the budget kept is Running and not being deleted$`, w.keptPodRuns)
	sc.Step(`^the client evicts the pod the budget kept again$`, w.evictsKeptPod)
}

func (w *world) budgetMaxUnavailable(name string, n int, app string) error {
	most := intstr.FromInt(n)
	return w.writeJSON(http.MethodPost, budgetsPath, "application/json", policyv1.PodDisruptionBudget{
		TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: &most,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}},
	})
}

func (w *world) budgetAllows(name string, n int) error {
	var b policyv1.PodDisruptionBudget
	if err := w.get(budgetsPath+"/"+url.PathEscape(name), &b); err != nil {
		return err
	}
	if int(b.Status.DisruptionsAllowed) != n || b.Status.ObservedGeneration != b.Generation {
		return fmt.Errorf("budget %s allows %d disruptions (counted at generation %d of %d), want %d: %+v",
			name, b.Status.DisruptionsAllowed, b.Status.ObservedGeneration, b.Generation, n, b.Status)
	}
	return nil
}

// evictsPodOf evicts a Running pod of the ReplicaSet not evicted before
// in the scenario, and remembers it.
func (w *world) evictsPodOf(rs string) error {
	pods, err := w.replicaSetPods(rs)
	if err != nil {
		return err
	}
	slices.SortFunc(pods, func(a, b corev1.Pod) int { return compareStrings(a.Name, b.Name) })
	for _, p := range pods {
		if p.Status.Phase == corev1.PodRunning && !slices.Contains(w.evicted, p.Name) {
			w.evicted = append(w.evicted, p.Name)
			return w.evictsPod(p.Name)
		}
	}
	return fmt.Errorf("ReplicaSet %s has no Running pod left to evict: %d pods", rs, len(pods))
}

func (w *world) evictionAccepted() error {
	if w.last.code != http.StatusCreated {
		return fmt.Errorf("the eviction was answered %s, want 201 Created", w.last)
	}
	var st metav1.Status
	if err := json.Unmarshal(w.last.body, &st); err != nil || st.Status != metav1.StatusSuccess {
		return fmt.Errorf("the eviction's answer is no Success: %s", w.last.body)
	}
	return nil
}

// keptPod is the pod the latest eviction named.
func (w *world) keptPod() (string, error) {
	if len(w.evicted) == 0 {
		return "", fmt.Errorf("no pod was evicted in this scenario")
	}
	return w.evicted[len(w.evicted)-1], nil
}

func (w *world) keptPodRuns() error {
	name, err := w.keptPod()
	if err != nil {
		return err
	}
	var p corev1.Pod
	if err := w.get("/api/v1/namespaces/default/pods/"+url.PathEscape(name), &p); err != nil {
		return err
	}
	if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
		return fmt.Errorf("pod %s is %s, deletion %v", name, p.Status.Phase, p.DeletionTimestamp)
	}
	return nil
}

func (w *world) evictsKeptPod() error {
	name, err := w.keptPod()
	if err != nil {
		return err
	}
	return w.evictsPod(name)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
