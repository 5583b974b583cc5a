package conversions

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"herd/domain"
)

// TestPodDisruptionBudgetRoundTrip: a budget with every field herd keeps
// reads back as written through policy/v1.
func TestPodDisruptionBudgetRoundTrip(t *testing.T) {
	b := domain.PodDisruptionBudget{
		ObjectMeta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-pdb", Labels: map[string]string{"app": "web"},
			Generation: 1, CreatedAt: t0},
		Spec: domain.PodDisruptionBudgetSpec{
			MaxUnavailable:             &domain.IntOrPercent{Value: 25, Percent: true},
			Selector:                   &domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			UnhealthyPodEvictionPolicy: domain.AlwaysAllow,
		},
		Status: domain.PodDisruptionBudgetStatus{
			ObservedGeneration: 1, DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3,
			DisruptedPods: map[string]time.Time{"web-a": t0},
			Conditions: []domain.BudgetCondition{{Type: domain.DisruptionAllowedCondition, Status: domain.ConditionTrue,
				Reason: domain.SufficientPodsReason, ObservedGeneration: 1, LastTransitionTime: t0}},
		},
		Version: 2, ResourceVersion: 9,
	}
	api := PodDisruptionBudgetToAPI(b)
	if api.Spec.MaxUnavailable.String() != "25%" || api.Spec.MinAvailable != nil || api.ResourceVersion != "9" {
		t.Errorf("to the API: %+v", api.Spec)
	}
	c, err := PodDisruptionBudgetFromAPI(api)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(b.Spec, c.Spec); diff != "" {
		t.Errorf("spec back (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(b.Status, PodDisruptionBudgetStatusFromAPI(api.Status)); diff != "" {
		t.Errorf("status back (-want +got):\n%s", diff)
	}
}

// TestPodDisruptionBudgetSelectors: policy/v1 tells a null selector (no
// pods) from an empty one (every pod of the namespace).
func TestPodDisruptionBudgetSelectors(t *testing.T) {
	one := intstr.FromInt32(1)
	for _, tt := range []struct {
		name string
		sel  *metav1.LabelSelector
		want *domain.LabelSelector
	}{
		{"null", nil, nil},
		{"empty", &metav1.LabelSelector{}, &domain.LabelSelector{}},
	} {
		c, err := PodDisruptionBudgetFromAPI(policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "x"},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &one, Selector: tt.sel}})
		if err != nil || !cmp.Equal(tt.want, c.Spec.Selector) {
			t.Errorf("%s selector: %+v, %v", tt.name, c.Spec.Selector, err)
		}
		if back := PodDisruptionBudgetToAPI(domain.PodDisruptionBudget{Spec: c.Spec}); (back.Spec.Selector == nil) != (tt.sel == nil) {
			t.Errorf("%s selector rendered as %v", tt.name, back.Spec.Selector)
		}
	}
}

func TestPodDisruptionBudgetBoundsRefused(t *testing.T) {
	for _, bad := range []string{"5", "%", "-5%", "five%", "5%%"} {
		v := intstr.FromString(bad)
		_, err := PodDisruptionBudgetFromAPI(policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "x"},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &v}})
		var inv *domain.InvalidError
		if !errors.As(err, &inv) || inv.Fields[0].Field != "spec.minAvailable" {
			t.Errorf("minAvailable %q: %v, want refused at spec.minAvailable", bad, err)
		}
	}
}
