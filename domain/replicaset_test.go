package domain

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sampleRS is a ReplicaSet of three web pods.
func sampleRSSpec() ReplicaSetSpec {
	return ReplicaSetSpec{
		Replicas: 3,
		Selector: LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: PodTemplate{Labels: map[string]string{"app": "web", "tier": "front"},
			Spec: PodSpec{Containers: []Container{{Name: "web", Image: "nginx"}}}},
	}
}

func sampleReplicaSetEvents() []Event {
	spec := sampleRSSpec()
	return []Event{
		ReplicaSetCreated{Namespace: "default", Name: "web", UID: "rs-uid", Labels: map[string]string{"app": "web"}, Spec: spec, At: at(1)},
		ReplicaSetChanged{Labels: map[string]string{"app": "web"}, Spec: spec, Generation: 2, At: at(2)},
		ReplicaSetMetadataChanged{Labels: map[string]string{"app": "web", "x": "y"}, Owners: []OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-uid", Controller: true}},
			Changed: []string{"metadata.labels.x"}, At: at(2)},
		ReplicaSetStatusRecorded{Status: ReplicaSetStatus{Replicas: 3, ReadyReplicas: 2, ObservedGeneration: 2}, At: at(3)},
		ReplicaSetOwnersChanged{At: at(4)},
		ReplicaSetDeletionRequested{At: at(4)},
		ReplicaSetDeleted{Orphan: true, At: at(5)},
	}
}

func createdRS(t *testing.T) ReplicaSet {
	t.Helper()
	evs, err := DecideReplicaSet(ReplicaSet{}, CreateReplicaSet{Meta: ObjectMeta{Namespace: "default", Name: "web", UID: "rs-uid"}, Spec: sampleRSSpec()}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	rs := ReplicaSet{}
	for _, e := range evs {
		rs = EvolveReplicaSet(rs, e)
	}
	rs.ResourceVersion = 7
	return rs
}

func TestDecideReplicaSet(t *testing.T) {
	rs := createdRS(t)
	scaled := sampleRSSpec()
	scaled.Replicas = 5
	otherSelector := sampleRSSpec()
	otherSelector.Selector = LabelSelector{MatchLabels: map[string]string{"tier": "front"}}
	mismatched := sampleRSSpec()
	mismatched.Template.Labels = map[string]string{"app": "api"}
	tests := []struct {
		name    string
		rs      ReplicaSet
		cmd     ReplicaSetCommand
		want    []Event
		wantErr error
	}{
		{"create twice", rs, CreateReplicaSet{Meta: ObjectMeta{Namespace: "default", Name: "web", UID: "u2"}, Spec: sampleRSSpec()}, nil, ErrAlreadyExists},
		{"a template its selector does not select", ReplicaSet{}, CreateReplicaSet{Meta: ObjectMeta{Namespace: "default", Name: "web", UID: "u"}, Spec: mismatched}, nil, ErrInvalid},
		{"an empty selector", ReplicaSet{}, CreateReplicaSet{Meta: ObjectMeta{Namespace: "default", Name: "web", UID: "u"}, Spec: ReplicaSetSpec{Template: sampleRSSpec().Template}}, nil, ErrInvalid},
		{"scale", rs, ScaleReplicaSet{Replicas: 5}, []Event{ReplicaSetChanged{Spec: scaled, Generation: 2, At: at(2)}}, nil},
		{"scale to the same", rs, ScaleReplicaSet{Replicas: 3}, nil, nil},
		{"scale below zero", rs, ScaleReplicaSet{Replicas: -1}, nil, ErrInvalid},
		{"scale a stale version", rs, Precondition[ReplicaSetCommand]{ResourceVersion: 6, Command: ScaleReplicaSet{Replicas: 5}}, nil, ErrConflict},
		{"labels only are metadata, the generation kept", rs, UpdateReplicaSet{Meta: ObjectMeta{Labels: map[string]string{"x": "y"}}, Spec: sampleRSSpec()},
			[]Event{ReplicaSetMetadataChanged{Labels: map[string]string{"x": "y"}, Changed: []string{"metadata.labels.x"}, At: at(2)}}, nil},
		{"the selector is immutable", rs, UpdateReplicaSet{Spec: otherSelector}, nil, ErrInvalid},
		{"an update replaces the owners, in an event of their own", ownedRS(rs), UpdateReplicaSet{Meta: ObjectMeta{Labels: map[string]string{"x": "y"}}, Spec: sampleRSSpec()},
			[]Event{ReplicaSetMetadataChanged{Labels: map[string]string{"x": "y"}, Owners: ownedRS(rs).Owners, Changed: []string{"metadata.labels.x"}, At: at(2)},
				ReplicaSetOwnersChanged{At: at(2)}}, nil},
		{"an update of the owners alone", rs, UpdateReplicaSet{Meta: ownedRS(rs).ObjectMeta, Spec: sampleRSSpec()},
			[]Event{ReplicaSetOwnersChanged{Owners: ownedRS(rs).Owners, At: at(2)}}, nil},
		{"an update that keeps the owners", ownedRS(rs), UpdateReplicaSet{Meta: ownedRS(rs).ObjectMeta, Spec: sampleRSSpec()}, nil, nil},
		{"update of nothing", ReplicaSet{ObjectMeta: ObjectMeta{Name: "gone"}}, UpdateReplicaSet{Spec: sampleRSSpec()}, nil, ErrNotFound},
		{"status", rs, RecordReplicaSetStatus{Status: ReplicaSetStatus{Replicas: 3, ObservedGeneration: 1}},
			[]Event{ReplicaSetStatusRecorded{Status: ReplicaSetStatus{Replicas: 3, ObservedGeneration: 1}, At: at(2)}}, nil},
		{"the same status", rs, RecordReplicaSetStatus{}, nil, nil},
		{"status at its resourceVersion", rs, Precondition[ReplicaSetCommand]{ResourceVersion: 7, Command: RecordReplicaSetStatus{Status: ReplicaSetStatus{Replicas: 1}}},
			[]Event{ReplicaSetStatusRecorded{Status: ReplicaSetStatus{Replicas: 1}, At: at(2)}}, nil},
		{"status at a stale resourceVersion", rs, Precondition[ReplicaSetCommand]{ResourceVersion: 6, Command: RecordReplicaSetStatus{Status: ReplicaSetStatus{Replicas: 1}}}, nil, ErrConflict},
		{"delete", rs, DeleteReplicaSet{}, []Event{ReplicaSetDeleted{At: at(2)}}, nil},
		{"delete in the foreground", rs, DeleteReplicaSet{Propagation: PropagateForeground}, []Event{ReplicaSetDeletionRequested{At: at(2)}}, nil},
		{"delete orphaning the pods", rs, DeleteReplicaSet{Propagation: PropagateOrphan}, []Event{ReplicaSetDeleted{Orphan: true, At: at(2)}}, nil},
		{"delete while deleting in the foreground", deletingRS(rs), DeleteReplicaSet{}, nil, nil},
		{"finish a deletion in the foreground", deletingRS(rs), FinishReplicaSetDeletion{}, []Event{ReplicaSetDeleted{At: at(2)}}, nil},
		{"finish no deletion", rs, FinishReplicaSetDeletion{}, nil, nil},
		{"release from an owner", ownedRS(rs), ReleaseReplicaSet{UID: "d-uid"}, []Event{ReplicaSetOwnersChanged{Owners: []OwnerReference{}, At: at(2)}}, nil},
		{"release from no owner", rs, ReleaseReplicaSet{UID: "d-uid"}, nil, nil},
		{"delete of nothing", ReplicaSet{ObjectMeta: ObjectMeta{Name: "gone"}}, DeleteReplicaSet{}, nil, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideReplicaSet(tt.rs, tt.cmd, at(2))
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, evs); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func deletingRS(rs ReplicaSet) ReplicaSet {
	return EvolveReplicaSet(rs, ReplicaSetDeletionRequested{At: at(1)})
}

func ownedRS(rs ReplicaSet) ReplicaSet {
	return EvolveReplicaSet(rs, ReplicaSetOwnersChanged{Owners: []OwnerReference{{Kind: "Deployment", Name: "web", UID: "d-uid", Controller: true}}})
}

func TestReplicaSetTombstoneKeepsUIDAndOrphan(t *testing.T) {
	gone := EvolveReplicaSet(createdRS(t), ReplicaSetDeleted{Orphan: true})
	if gone.Exists() || gone.UID != "rs-uid" || !gone.Orphan {
		t.Errorf("tombstone %+v", gone)
	}
}

func TestReplicaSetPods(t *testing.T) {
	rs := createdRS(t)
	create := PodFromTemplate(rs.Namespace, "web-abcde", "pod-uid", rs.Spec.Template, rs.OwnerReference())
	if create.Labels["tier"] != "front" || len(create.Owners) != 1 || !create.Owners[0].Controller || create.Owners[0].UID != "rs-uid" {
		t.Errorf("a ReplicaSet's pod: %+v", create)
	}
	evs, err := DecidePod(Pod{}, create, at(3))
	if err != nil {
		t.Fatal(err)
	}
	var p Pod
	for _, e := range evs {
		p = EvolvePod(p, e)
	}
	if !rs.Owns(p) || !rs.Spec.Selector.Matches(p.Labels) {
		t.Errorf("the ReplicaSet does not own or select its own pod: %+v", p)
	}
}

func TestLabelSelectorMatches(t *testing.T) {
	labels := map[string]string{"app": "web", "tier": "front"}
	tests := []struct {
		name string
		sel  LabelSelector
		want bool
	}{
		{"labels", LabelSelector{MatchLabels: map[string]string{"app": "web"}}, true},
		{"another value", LabelSelector{MatchLabels: map[string]string{"app": "api"}}, false},
		{"in", LabelSelector{MatchExpressions: []SelectorRequirement{{Key: "tier", Operator: SelectorIn, Values: []string{"front", "back"}}}}, true},
		{"not in", LabelSelector{MatchExpressions: []SelectorRequirement{{Key: "tier", Operator: SelectorNotIn, Values: []string{"front"}}}}, false},
		{"exists", LabelSelector{MatchExpressions: []SelectorRequirement{{Key: "app", Operator: SelectorExists}}}, true},
		{"does not exist", LabelSelector{MatchExpressions: []SelectorRequirement{{Key: "zone", Operator: SelectorDoesNotExist}}}, true},
		{"an unknown operator", LabelSelector{MatchExpressions: []SelectorRequirement{{Key: "app", Operator: "Like"}}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.sel.Matches(labels); got != tt.want {
				t.Errorf("Matches = %v, want %v", got, tt.want)
			}
		})
	}
}
