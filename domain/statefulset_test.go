package domain

import (
	"errors"
	"strings"
	"testing"
)

func sampleStatefulSetSpec() StatefulSetSpec {
	return StatefulSetSpec{
		Replicas:    3,
		ServiceName: "web",
		Selector:    LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: PodTemplate{Labels: map[string]string{"app": "web"},
			Spec: PodSpec{Containers: []Container{{Name: "web", Image: "nginx:1"}}}},
	}
}

func sampleStatefulSetEvents() []Event {
	spec := sampleStatefulSetSpec()
	DefaultStatefulSetSpec(&spec)
	return []Event{
		StatefulSetCreated{Namespace: "default", Name: "web", UID: "sts-uid", Spec: spec, At: at(1)},
		StatefulSetChanged{Labels: map[string]string{"team": "a"}, Spec: spec, Generation: 2, At: at(2)},
		StatefulSetMetadataChanged{Labels: map[string]string{"team": "b"}, Changed: []string{"metadata.labels.team"}, At: at(2)},
		StatefulSetStatusRecorded{Status: StatefulSetStatus{Replicas: 3, ReadyReplicas: 2, UpdateRevision: "web-x"}, At: at(3)},
		StatefulSetOwnersChanged{At: at(4)},
		StatefulSetDeletionRequested{At: at(4)},
		StatefulSetDeleted{Orphan: true, At: at(5)},
	}
}

func createdStatefulSet(t *testing.T, spec StatefulSetSpec) StatefulSet {
	t.Helper()
	evs, err := DecideObject[StatefulSet](StatefulSet{}, CreateStatefulSet{Meta: ObjectMeta{Namespace: "default", Name: "web", UID: "u"}, Spec: spec}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	return EvolveObject(StatefulSet{}, evs[0])
}

// TestStatefulSetCreateTakesAppsV1Defaults: what a create leaves out is
// OrderedReady, a rolling update from partition 0 with one replica
// unavailable at a time, and ten revisions.
func TestStatefulSetCreateTakesAppsV1Defaults(t *testing.T) {
	s := createdStatefulSet(t, sampleStatefulSetSpec())
	if s.Spec.PodManagementPolicy != StatefulSetOrderedReady || s.Spec.UpdateStrategy.Type != StatefulSetRollingUpdate ||
		s.Spec.UpdateStrategy.Partition == nil || *s.Spec.UpdateStrategy.Partition != 0 ||
		s.Spec.UpdateStrategy.MaxUnavailable == nil || *s.Spec.UpdateStrategy.MaxUnavailable != (IntOrPercent{Value: 1}) ||
		s.Spec.RevisionHistoryLimit == nil || *s.Spec.RevisionHistoryLimit != 10 || s.Generation != 1 {
		t.Fatalf("spec = %+v, generation %d", s.Spec, s.Generation)
	}
}

// TestStatefulSetRefusesWhatKubeApiserverRefuses: each bad spec is
// refused naming its field, as ValidateStatefulSetSpec does.
func TestStatefulSetRefusesWhatKubeApiserverRefuses(t *testing.T) {
	neg := int32(-1)
	for _, tc := range []struct {
		field  string
		change func(*StatefulSetSpec)
	}{
		{"spec.replicas", func(s *StatefulSetSpec) { s.Replicas = -1 }},
		{"spec.selector", func(s *StatefulSetSpec) { s.Selector = LabelSelector{} }},
		{"spec.template.metadata.labels", func(s *StatefulSetSpec) { s.Template.Labels = map[string]string{"app": "db"} }},
		{"spec.podManagementPolicy", func(s *StatefulSetSpec) { s.PodManagementPolicy = "Sometimes" }},
		{"spec.updateStrategy.type", func(s *StatefulSetSpec) { s.UpdateStrategy.Type = "Now" }},
		{"spec.updateStrategy.rollingUpdate.partition", func(s *StatefulSetSpec) { s.UpdateStrategy.Partition = &neg }},
		{"spec.updateStrategy.rollingUpdate", func(s *StatefulSetSpec) {
			s.UpdateStrategy = StatefulSetUpdateStrategy{Type: StatefulSetOnDelete, Partition: new(int32)}
		}},
		{"spec.updateStrategy.rollingUpdate", func(s *StatefulSetSpec) {
			s.UpdateStrategy = StatefulSetUpdateStrategy{Type: StatefulSetOnDelete, MaxUnavailable: Ints(2)}
		}},
		{"spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: \"0\": cannot be 0", func(s *StatefulSetSpec) { s.UpdateStrategy.MaxUnavailable = Ints(0) }},
		{"spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": cannot be 0", func(s *StatefulSetSpec) { s.UpdateStrategy.MaxUnavailable = Percents(0) }},
		{"spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: \"-1\"", func(s *StatefulSetSpec) { s.UpdateStrategy.MaxUnavailable = Ints(-1) }},
		{"spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: \"101%\"", func(s *StatefulSetSpec) { s.UpdateStrategy.MaxUnavailable = Percents(101) }},
		{"spec.revisionHistoryLimit", func(s *StatefulSetSpec) { s.RevisionHistoryLimit = &neg }},
		{"spec.minReadySeconds", func(s *StatefulSetSpec) { s.MinReadySeconds = -1 }},
		{"spec.template.spec.restartPolicy", func(s *StatefulSetSpec) { s.Template.Spec.RestartPolicy = RestartNever }},
	} {
		spec := sampleStatefulSetSpec()
		tc.change(&spec)
		_, err := DecideObject[StatefulSet](StatefulSet{}, CreateStatefulSet{Meta: ObjectMeta{Namespace: "default", Name: "web"}, Spec: spec}, at(1))
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: err = %v", tc.field, err)
		}
	}
}

// TestStatefulSetUpdateChangesOnlyWhatAppsV1Allows: the template, the
// replicas and the strategy may change (a new generation); the selector,
// the service name and the pod management policy may not.
func TestStatefulSetUpdateChangesOnlyWhatAppsV1Allows(t *testing.T) {
	s := createdStatefulSet(t, sampleStatefulSetSpec())
	spec := deepCopy(s.Spec)
	spec.Template.Spec.Containers[0].Image = "nginx:2"
	spec.Replicas = 5
	evs, err := DecideObject[StatefulSet](s, UpdateStatefulSet{Spec: spec}, at(2))
	if err != nil || len(evs) != 1 {
		t.Fatalf("update: %v %v", evs, err)
	}
	if got := EvolveObject(s, evs[0]); got.Generation != 2 || PodTemplateHash(got.Spec.Template) == PodTemplateHash(s.Spec.Template) {
		t.Fatalf("generation %d, template hash %s (was %s)", got.Generation, PodTemplateHash(got.Spec.Template), PodTemplateHash(s.Spec.Template))
	}
	for name, change := range map[string]func(*StatefulSetSpec){
		"selector":            func(s *StatefulSetSpec) { s.Selector.MatchLabels["tier"] = "x"; s.Template.Labels["tier"] = "x" },
		"serviceName":         func(s *StatefulSetSpec) { s.ServiceName = "other" },
		"podManagementPolicy": func(s *StatefulSetSpec) { s.PodManagementPolicy = StatefulSetParallel },
	} {
		spec := deepCopy(s.Spec)
		change(&spec)
		if _, err := DecideObject[StatefulSet](s, UpdateStatefulSet{Spec: spec}, at(2)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "Forbidden") {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

// TestStatefulSetScaleIsAnUpdateOfReplicas: kubectl scale changes only
// the replicas; a negative scale is refused naming the Scale.
func TestStatefulSetScaleIsAnUpdateOfReplicas(t *testing.T) {
	s := createdStatefulSet(t, sampleStatefulSetSpec())
	evs, err := DecideObject[StatefulSet](s, ScaleStatefulSet{Replicas: 1}, at(2))
	if err != nil || len(evs) != 1 {
		t.Fatalf("%v %v", evs, err)
	}
	if got := EvolveObject(s, evs[0]); got.Spec.Replicas != 1 {
		t.Fatalf("replicas %d", got.Spec.Replicas)
	}
	if _, err := DecideObject[StatefulSet](s, ScaleStatefulSet{Replicas: -1}, at(2)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "Scale") {
		t.Fatalf("err = %v", err)
	}
}
