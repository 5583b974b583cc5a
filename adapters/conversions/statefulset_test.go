package conversions

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"herd/domain"
)

// A StatefulSet read from the API takes apps/v1's defaults for what it
// leaves out, on an update as on a create (the domain's, said once), and
// keeps what it sets, copied.
func TestStatefulSetFromAPIDefaults(t *testing.T) {
	body := func(strategy appsv1.StatefulSetUpdateStrategy) appsv1.StatefulSet {
		var out appsv1.StatefulSet
		out.Name, out.Namespace = "web", "default"
		out.Spec.Selector = SelectorToAPI(domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}})
		out.Spec.Template.Labels = map[string]string{"app": "web"}
		out.Spec.Template.Spec.Containers = []corev1.Container{{Name: "web", Image: "nginx"}}
		out.Spec.UpdateStrategy = strategy
		return out
	}
	c, err := StatefulSetFromAPI(body(appsv1.StatefulSetUpdateStrategy{}))
	if err != nil {
		t.Fatal(err)
	}
	s := c.Spec
	if s.Replicas != 1 || s.PodManagementPolicy != domain.StatefulSetOrderedReady || s.UpdateStrategy.Type != domain.StatefulSetRollingUpdate ||
		ptr.Deref(s.UpdateStrategy.Partition, -1) != 0 || s.UpdateStrategy.MaxUnavailable == nil || *s.UpdateStrategy.MaxUnavailable != *domain.Ints(1) ||
		ptr.Deref(s.RevisionHistoryLimit, -1) != 10 {
		t.Fatalf("defaults: got %+v", s)
	}

	in := body(appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2)}})
	in.Spec.RevisionHistoryLimit = ptr.To[int32](3)
	c, err = StatefulSetFromAPI(in)
	if err != nil {
		t.Fatal(err)
	}
	*in.Spec.UpdateStrategy.RollingUpdate.Partition, *in.Spec.RevisionHistoryLimit = 7, 7
	if p, l := ptr.Deref(c.Spec.UpdateStrategy.Partition, -1), ptr.Deref(c.Spec.RevisionHistoryLimit, -1); p != 2 || l != 3 {
		t.Fatalf("partition %d, revision history limit %d: want 2 and 3, kept apart from the body", p, l)
	}

	c, err = StatefulSetFromAPI(body(appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Spec.UpdateStrategy.Partition != nil || c.Spec.UpdateStrategy.MaxUnavailable != nil {
		t.Fatalf("OnDelete: got a rolling update's bounds %+v", c.Spec.UpdateStrategy)
	}
}
