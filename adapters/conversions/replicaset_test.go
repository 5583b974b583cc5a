package conversions

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// webReplicaSet is a ReplicaSet with every field herd keeps set.
func webReplicaSet() domain.ReplicaSet {
	grace := int64(10)
	return domain.ReplicaSet{
		ObjectMeta: domain.ObjectMeta{
			Namespace: "default", Name: "web", UID: "uid-web",
			Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"team": "web"},
			Owners:     []domain.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "uid-d", Controller: true}},
			Generation: 2, CreatedAt: t0,
		},
		Spec: domain.ReplicaSetSpec{
			Replicas: 3, MinReadySeconds: 5,
			Selector: domain.LabelSelector{MatchLabels: map[string]string{"app": "web"},
				MatchExpressions: []domain.SelectorRequirement{{Key: "tier", Operator: domain.SelectorIn, Values: []string{"a", "b"}}}},
			Template: domain.PodTemplate{
				Labels: map[string]string{"app": "web", "tier": "a"}, Annotations: map[string]string{"note": "x"},
				Spec: domain.PodSpec{NodeSelector: map[string]string{"zone": "b"}, TerminationGracePeriodSeconds: grace,
					Tolerations: []domain.Toleration{{Key: "gpu", Operator: "Exists", Effect: domain.EffectNoSchedule}},
					Containers:  []domain.Container{{Name: "app", Image: "nginx", Args: []string{"-g"}, Requests: domain.ResourceList{"cpu": 250}}},
					Zone:        &domain.ZoneSpec{Brand: "lx", Image: "ubuntu.tar.xz"}},
				TerminationGracePeriodSeconds: &grace,
			},
		},
		Status:          domain.ReplicaSetStatus{Replicas: 2, FullyLabeledReplicas: 2, ReadyReplicas: 1, AvailableReplicas: 1, ObservedGeneration: 2},
		Version:         4,
		ResourceVersion: 17,
	}
}

func TestReplicaSetFromAPIReadsBackReplicaSetToAPI(t *testing.T) {
	rs := webReplicaSet()
	api := ReplicaSetToAPI(rs)
	if api.ResourceVersion != "17" || api.Generation != 2 || api.UID != "uid-web" || api.Status.ObservedGeneration != 2 ||
		api.Spec.Template.Annotations[AnnotationZoneBrand] != "lx" || *api.Spec.Template.Spec.TerminationGracePeriodSeconds != 10 ||
		api.Spec.Selector.MatchExpressions[0].Operator != metav1.LabelSelectorOpIn || !*api.OwnerReferences[0].Controller {
		t.Fatalf("served as %+v", api)
	}
	got, err := ReplicaSetFromAPI(api)
	if err != nil {
		t.Fatal(err)
	}
	want := domain.CreateReplicaSet{Meta: domain.ObjectMeta{Namespace: rs.Namespace, Name: rs.Name, Labels: rs.Labels, Annotations: rs.Annotations, Owners: rs.Owners}, Spec: rs.Spec}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("(-served +read back):\n%s", diff)
	}
	if s := ReplicaSetStatusFromAPI(api.Status); s != rs.Status {
		t.Errorf("status read back as %+v, want %+v", s, rs.Status)
	}
}

func TestReplicaSetFromAPIDefaultsAsKubernetes(t *testing.T) {
	in := appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.ReplicaSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "nginx"}}}},
		},
	}
	got, err := ReplicaSetFromAPI(in)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := got.Spec.Template
	if got.Spec.Replicas != 1 || tmpl.TerminationGracePeriodSeconds == nil || *tmpl.TerminationGracePeriodSeconds != 30 || tmpl.Spec.TerminationGracePeriodSeconds != 30 {
		t.Errorf("defaults: replicas %d, template %+v; want 1 replica and a grace period of 30 s", got.Spec.Replicas, tmpl)
	}
	zero := int32(0)
	in.Spec.Replicas = &zero
	if got, _ := ReplicaSetFromAPI(in); got.Spec.Replicas != 0 {
		t.Errorf("replicas 0 read as %d", got.Spec.Replicas)
	}
}

func TestReplicaSetFromAPIRefusesWhatKubernetesRefuses(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*appsv1.ReplicaSet)
		field string
	}{
		{"a restart policy other than Always", func(r *appsv1.ReplicaSet) { r.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever }, "spec.template.spec.restartPolicy"},
		{"another kind", func(r *appsv1.ReplicaSet) { r.Kind = "Deployment" }, "kind"},
		{"a bad label", func(r *appsv1.ReplicaSet) { r.Labels = map[string]string{"a b": "c"} }, "metadata.labels"},
		{"a container without a name", func(r *appsv1.ReplicaSet) { r.Spec.Template.Spec.Containers[0].Name = "" }, "spec.template.spec.containers[0].name"},
		{"bad zone volumes", func(r *appsv1.ReplicaSet) {
			r.Spec.Template.Annotations = map[string]string{AnnotationZoneVolumes: "[{"}
		}, "spec.template.metadata.annotations"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := ReplicaSetToAPI(webReplicaSet())
			tt.edit(&in)
			_, err := ReplicaSetFromAPI(in)
			var inv *domain.InvalidError
			if !errors.As(err, &inv) || !strings.Contains(err.Error(), tt.field) {
				t.Errorf("%v, want an invalid %s", err, tt.field)
			}
		})
	}
}

func TestReplicaSetScaleToAPI(t *testing.T) {
	s := ReplicaSetScaleToAPI(webReplicaSet())
	if s.Kind != "Scale" || s.APIVersion != "autoscaling/v1" || s.Spec.Replicas != 3 || s.Status.Replicas != 2 ||
		s.Status.Selector != "app=web,tier in (a,b)" || s.ResourceVersion != "17" || s.Name != "web" {
		t.Errorf("scale %+v", s)
	}
}
