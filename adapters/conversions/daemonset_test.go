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
	"k8s.io/apimachinery/pkg/util/intstr"

	"herd/domain"
)

// logsDaemonSet is a DaemonSet with every field herd keeps set.
func logsDaemonSet() domain.DaemonSet {
	grace := int64(10)
	return domain.DaemonSet{TemplateGeneration: 2, Object: domain.Object[domain.DaemonSetSpec, domain.DaemonSetStatus]{
		ObjectMeta: domain.ObjectMeta{Namespace: "kube-system", Name: "logs", UID: "uid-logs",
			Labels: map[string]string{"app": "logs"}, Annotations: map[string]string{"team": "ops"}, Generation: 3, CreatedAt: t0},
		Spec: domain.DaemonSetSpec{
			Selector: domain.LabelSelector{MatchLabels: map[string]string{"app": "logs"}},
			Template: domain.PodTemplate{
				Labels: map[string]string{"app": "logs"},
				Spec: domain.PodSpec{NodeSelector: map[string]string{domain.LabelKind: "illumos"}, TerminationGracePeriodSeconds: grace,
					Containers: []domain.Container{{Name: "fluent", Image: "fluent-bit"}}, Zone: &domain.ZoneSpec{Brand: "sparse"}},
				TerminationGracePeriodSeconds: &grace,
			},
			UpdateStrategy: domain.DaemonSetUpdateStrategy{Type: domain.DaemonSetRollingUpdate,
				RollingUpdate: &domain.RollingUpdateDaemonSet{MaxSurge: domain.IntOrPercent{Value: 25, Percent: true}}},
			MinReadySeconds: 5, RevisionHistoryLimit: 3,
		},
		Status: domain.DaemonSetStatus{DesiredNumberScheduled: 4, CurrentNumberScheduled: 4, NumberReady: 3, UpdatedNumberScheduled: 2,
			NumberAvailable: 3, NumberUnavailable: 1, NumberMisscheduled: 1, ObservedGeneration: 3},
		Version: 4, ResourceVersion: 17,
	}}
}

func TestDaemonSetFromAPIReadsBackDaemonSetToAPI(t *testing.T) {
	ds := logsDaemonSet()
	api := DaemonSetToAPI(ds)
	if api.ResourceVersion != "17" || api.Generation != 3 || api.Annotations[AnnotationTemplateGeneration] != "2" || api.Annotations["team"] != "ops" ||
		api.Spec.UpdateStrategy.RollingUpdate.MaxSurge.String() != "25%" || api.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable.String() != "0" ||
		*api.Spec.RevisionHistoryLimit != 3 || api.Spec.Template.Annotations[AnnotationZoneBrand] != "sparse" || api.Status.NumberUnavailable != 1 {
		t.Fatalf("served as %+v", api)
	}
	if _, ok := ds.Annotations[AnnotationTemplateGeneration]; ok {
		t.Error("serving a DaemonSet changed its annotations")
	}
	got, err := DaemonSetFromAPI(api)
	if err != nil {
		t.Fatal(err)
	}
	// The template generation a client echoes back is herd's, not its.
	want := domain.CreateDaemonSet{Meta: domain.ObjectMeta{Namespace: ds.Namespace, Name: ds.Name, Labels: ds.Labels, Annotations: ds.Annotations}, Spec: ds.Spec}
	if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("(-served +read back):\n%s", diff)
	}
	if s := DaemonSetStatusFromAPI(api.Status); s != ds.Status {
		t.Errorf("status read back as %+v, want %+v", s, ds.Status)
	}
}

func TestDaemonSetFromAPIDefaults(t *testing.T) {
	in := appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "logs", Namespace: "default"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "logs"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "logs"}},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}},
		},
	}
	got, err := DaemonSetFromAPI(in)
	if err != nil {
		t.Fatal(err)
	}
	want := domain.DaemonSetUpdateStrategy{Type: domain.DaemonSetRollingUpdate, RollingUpdate: &domain.RollingUpdateDaemonSet{MaxUnavailable: domain.IntOrPercent{Value: 1}}}
	if diff := cmp.Diff(want, got.Spec.UpdateStrategy); diff != "" || got.Spec.RevisionHistoryLimit != 10 || *got.Spec.Template.TerminationGracePeriodSeconds != 30 {
		t.Errorf("defaults: strategy (-want +got):\n%s, history %d, grace %d", diff, got.Spec.RevisionHistoryLimit, *got.Spec.Template.TerminationGracePeriodSeconds)
	}
	in.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
	if got, err = DaemonSetFromAPI(in); err != nil || got.Spec.UpdateStrategy != (domain.DaemonSetUpdateStrategy{Type: domain.DaemonSetOnDelete}) {
		t.Errorf("on delete: %+v, %v", got.Spec.UpdateStrategy, err)
	}
}

func TestDaemonSetFromAPIRefusals(t *testing.T) {
	base := func() appsv1.DaemonSet {
		return DaemonSetToAPI(logsDaemonSet())
	}
	pct := func(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
	deadline := int64(60)
	tests := []struct {
		name   string
		change func(*appsv1.DaemonSet)
		field  string
	}{
		{"a restart policy other than Always", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever },
			"spec.template.spec.restartPolicy"},
		{"an active deadline", func(ds *appsv1.DaemonSet) { ds.Spec.Template.Spec.ActiveDeadlineSeconds = &deadline },
			"spec.template.spec.activeDeadlineSeconds"},
		{"a required node affinity", func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{
				RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{}}}}}
		}, "spec.template.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution"},
		{"a bound that is no percentage", func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = pct("a quarter") },
			"spec.updateStrategy.rollingUpdate.maxSurge"},
		{"another kind", func(ds *appsv1.DaemonSet) { ds.Kind = "ReplicaSet" }, "kind"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := base()
			tt.change(&in)
			_, err := DaemonSetFromAPI(in)
			var inv *domain.InvalidError
			if !errors.As(err, &inv) || len(inv.Fields) == 0 || inv.Fields[0].Field != tt.field {
				t.Fatalf("err = %v, want a refusal naming %s", err, tt.field)
			}
			if !strings.Contains(err.Error(), "DaemonSet") {
				t.Errorf("the refusal does not say what it refused: %v", err)
			}
		})
	}
}
