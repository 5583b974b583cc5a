package domain

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sampleDSSpec is a DaemonSet of log collectors on linux nodes, rolled
// out one node at a time.
func sampleDSSpec() DaemonSetSpec {
	return DaemonSetSpec{
		Selector: LabelSelector{MatchLabels: map[string]string{"app": "logs"}},
		Template: PodTemplate{Labels: map[string]string{"app": "logs"},
			Spec: PodSpec{NodeSelector: map[string]string{LabelKind: "linux"}, Containers: []Container{{Name: "fluent", Image: "fluent-bit:3"}}}},
		UpdateStrategy:       DaemonSetUpdateStrategy{Type: DaemonSetRollingUpdate, RollingUpdate: &RollingUpdateDaemonSet{MaxUnavailable: IntOrPercent{Value: 1}}},
		RevisionHistoryLimit: 10,
	}
}

func sampleDaemonSetEvents() []Event {
	spec := sampleDSSpec()
	return []Event{
		DaemonSetCreated{Namespace: "default", Name: "logs", UID: "ds-uid", Labels: map[string]string{"app": "logs"}, Spec: spec, At: at(1)},
		DaemonSetChanged{Labels: map[string]string{"app": "logs"}, Spec: spec, Generation: 2, TemplateGeneration: 2, At: at(2)},
		DaemonSetMetadataChanged{Labels: map[string]string{"app": "logs"}, Annotations: map[string]string{"note": "x"}, Changed: []string{"metadata.annotations.note"}, At: at(2)},
		DaemonSetStatusRecorded{Status: DaemonSetStatus{DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 2, ObservedGeneration: 2}, At: at(3)},
		DaemonSetDeletionRequested{At: at(4)},
		DaemonSetOwnersChanged{Owners: []OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", UID: "u"}}, At: at(4)},
		DaemonSetDeleted{Orphan: true, At: at(4)},
	}
}

func createdDS(t *testing.T) DaemonSet {
	t.Helper()
	evs, err := DecideDaemonSet(DaemonSet{}, CreateDaemonSet{Meta: ObjectMeta{Namespace: "default", Name: "logs", UID: "ds-uid"}, Spec: sampleDSSpec()}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	ds := DaemonSet{}
	for _, e := range evs {
		ds = EvolveDaemonSet(ds, e)
	}
	ds.ResourceVersion = 7
	return ds
}

func TestDecideDaemonSet(t *testing.T) {
	ds := createdDS(t)
	newImage := sampleDSSpec()
	newImage.Template.Spec.Containers[0].Image = "fluent-bit:4"
	slower := sampleDSSpec()
	slower.MinReadySeconds = 10
	deleting := EvolveDaemonSet(ds, DaemonSetDeletionRequested{At: at(1)})
	otherSelector := sampleDSSpec()
	otherSelector.Selector = LabelSelector{MatchLabels: map[string]string{"tier": "node"}}
	mismatched := sampleDSSpec()
	mismatched.Template.Labels = map[string]string{"app": "metrics"}
	withStrategy := func(u DaemonSetUpdateStrategy) DaemonSetSpec {
		s := sampleDSSpec()
		s.UpdateStrategy = u
		return s
	}
	bounds := func(unavailable, surge IntOrPercent) DaemonSetSpec {
		return withStrategy(DaemonSetUpdateStrategy{Type: DaemonSetRollingUpdate, RollingUpdate: &RollingUpdateDaemonSet{MaxUnavailable: unavailable, MaxSurge: surge}})
	}
	create := func(spec DaemonSetSpec) CreateDaemonSet {
		return CreateDaemonSet{Meta: ObjectMeta{Namespace: "default", Name: "x", UID: "u"}, Spec: spec}
	}
	tests := []struct {
		name    string
		ds      DaemonSet
		cmd     DaemonSetCommand
		want    []Event
		wantErr error
	}{
		{"create twice", ds, CreateDaemonSet{Meta: ObjectMeta{Namespace: "default", Name: "logs", UID: "u2"}, Spec: sampleDSSpec()}, nil, ErrAlreadyExists},
		{"a template its selector does not select", DaemonSet{}, create(mismatched), nil, ErrInvalid},
		{"an empty selector", DaemonSet{}, create(DaemonSetSpec{Template: sampleDSSpec().Template, UpdateStrategy: sampleDSSpec().UpdateStrategy}), nil, ErrInvalid},
		{"on delete", DaemonSet{}, create(withStrategy(DaemonSetUpdateStrategy{Type: DaemonSetOnDelete})),
			[]Event{DaemonSetCreated{Namespace: "default", Name: "x", UID: "u", Spec: withStrategy(DaemonSetUpdateStrategy{Type: DaemonSetOnDelete}), At: at(2)}}, nil},
		{"an unknown strategy", DaemonSet{}, create(withStrategy(DaemonSetUpdateStrategy{Type: "Recreate"})), nil, ErrInvalid},
		{"a rolling update without bounds", DaemonSet{}, create(withStrategy(DaemonSetUpdateStrategy{Type: DaemonSetRollingUpdate})), nil, ErrInvalid},
		{"both bounds zero", DaemonSet{}, create(bounds(IntOrPercent{}, IntOrPercent{})), nil, ErrInvalid},
		{"both bounds set", DaemonSet{}, create(bounds(IntOrPercent{Value: 1}, IntOrPercent{Value: 1})), nil, ErrInvalid},
		{"over 100%", DaemonSet{}, create(bounds(IntOrPercent{Value: 120, Percent: true}, IntOrPercent{})), nil, ErrInvalid},
		{"a surge alone", DaemonSet{}, create(bounds(IntOrPercent{}, IntOrPercent{Value: 25, Percent: true})),
			[]Event{DaemonSetCreated{Namespace: "default", Name: "x", UID: "u", Spec: bounds(IntOrPercent{}, IntOrPercent{Value: 25, Percent: true}), At: at(2)}}, nil},
		{"a new template is a new template generation", ds, UpdateDaemonSet{Spec: newImage},
			[]Event{DaemonSetChanged{Spec: newImage, Generation: 2, TemplateGeneration: 2, At: at(2)}}, nil},
		{"another spec keeps the template generation", ds, UpdateDaemonSet{Spec: slower},
			[]Event{DaemonSetChanged{Spec: slower, Generation: 2, TemplateGeneration: 1, At: at(2)}}, nil},
		{"labels only keep both generations", ds, UpdateDaemonSet{Meta: ObjectMeta{Labels: map[string]string{"x": "y"}}, Spec: sampleDSSpec()},
			[]Event{DaemonSetMetadataChanged{Labels: map[string]string{"x": "y"}, Changed: []string{"metadata.labels.x"}, At: at(2)}}, nil},
		{"the same again", ds, UpdateDaemonSet{Spec: sampleDSSpec()}, nil, nil},
		{"the selector is immutable", ds, UpdateDaemonSet{Spec: otherSelector}, nil, ErrInvalid},
		{"a stale update", ds, Precondition[DaemonSetCommand]{ResourceVersion: 6, Command: UpdateDaemonSet{Spec: newImage}}, nil, ErrConflict},
		{"update of nothing", DaemonSet{Object: Object[DaemonSetSpec, DaemonSetStatus]{ObjectMeta: ObjectMeta{Name: "gone"}}}, UpdateDaemonSet{Spec: sampleDSSpec()}, nil, ErrNotFound},
		{"status", ds, RecordDaemonSetStatus{Status: DaemonSetStatus{DesiredNumberScheduled: 3, ObservedGeneration: 1}},
			[]Event{DaemonSetStatusRecorded{Status: DaemonSetStatus{DesiredNumberScheduled: 3, ObservedGeneration: 1}, At: at(2)}}, nil},
		{"the same status", ds, RecordDaemonSetStatus{}, nil, nil},
		{"status at a stale resourceVersion", ds, Precondition[DaemonSetCommand]{ResourceVersion: 6, Command: RecordDaemonSetStatus{Status: DaemonSetStatus{NumberReady: 1}}}, nil, ErrConflict},
		{"delete", ds, DeleteDaemonSet{}, []Event{DaemonSetDeleted{At: at(2)}}, nil},
		{"delete in the foreground", ds, DeleteDaemonSet{Propagation: PropagateForeground}, []Event{DaemonSetDeletionRequested{At: at(2)}}, nil},
		{"delete orphaning", ds, DeleteDaemonSet{Propagation: PropagateOrphan}, []Event{DaemonSetDeleted{Orphan: true, At: at(2)}}, nil},
		{"finish no deletion", ds, FinishDaemonSetDeletion{}, nil, nil},
		{"a stale delete", ds, Precondition[DaemonSetCommand]{ResourceVersion: 6, Command: DeleteDaemonSet{}}, nil, ErrConflict},
		{"delete at the resourceVersion", ds, Precondition[DaemonSetCommand]{ResourceVersion: 7, Command: DeleteDaemonSet{}}, []Event{DaemonSetDeleted{At: at(2)}}, nil},
		{"delete again while deleting in the foreground", deleting, DeleteDaemonSet{Propagation: PropagateOrphan}, nil, nil},
		{"finish a deletion in the foreground", deleting, FinishDaemonSetDeletion{}, []Event{DaemonSetDeleted{At: at(2)}}, nil},
		{"delete of nothing", DaemonSet{Object: Object[DaemonSetSpec, DaemonSetStatus]{ObjectMeta: ObjectMeta{Name: "gone"}}}, DeleteDaemonSet{}, nil, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideDaemonSet(tt.ds, tt.cmd, at(2))
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, evs); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// An update of a DaemonSet records its template generation, which only a
// DaemonSet's state keeps: decided on the bare object it is refused as
// bad input rather than recorded without it.
func TestDaemonSetUpdateNeedsTheDaemonSet(t *testing.T) {
	ds := createdDS(t)
	newImage := sampleDSSpec()
	newImage.Template.Spec.Containers[0].Image = "fluentd:2"
	evs, err := DecideObject[Object[DaemonSetSpec, DaemonSetStatus]](ds.Object, UpdateDaemonSet{Spec: newImage}, at(2))
	if !errors.Is(err, ErrInvalid) || evs != nil {
		t.Fatalf("DecideObject on the bare object = %v, %v; want no events and ErrInvalid", evs, err)
	}
}

func TestDaemonSetRefusalsNameTheField(t *testing.T) {
	spec := sampleDSSpec()
	spec.UpdateStrategy.RollingUpdate = &RollingUpdateDaemonSet{MaxUnavailable: IntOrPercent{Value: 1}, MaxSurge: IntOrPercent{Value: 1}}
	spec.MinReadySeconds = -1
	_, err := DecideDaemonSet(DaemonSet{}, CreateDaemonSet{Meta: ObjectMeta{Namespace: "default", Name: "logs", UID: "u"}, Spec: spec}, at(1))
	var inv *InvalidError
	if !errors.As(err, &inv) {
		t.Fatalf("err = %v, want an InvalidError", err)
	}
	var fields []string
	for _, f := range inv.Fields {
		fields = append(fields, f.Field)
	}
	if want := []string{"spec.minReadySeconds", "spec.updateStrategy.rollingUpdate.maxSurge"}; !slices.Equal(fields, want) {
		t.Errorf("fields %v, want %v (%v)", fields, want, err)
	}
}

func TestIntOrPercentOfNodes(t *testing.T) {
	tests := []struct {
		v     IntOrPercent
		total int32
		want  int32
		str   string
	}{
		{IntOrPercent{Value: 2}, 10, 2, "2"},
		{IntOrPercent{Value: 25, Percent: true}, 10, 3, "25%"},
		{IntOrPercent{Value: 10, Percent: true}, 10000, 1000, "10%"},
		{IntOrPercent{Value: 1, Percent: true}, 3, 1, "1%"},
		{IntOrPercent{Value: 0, Percent: true}, 3, 0, "0%"},
	}
	for _, tt := range tests {
		if got := tt.v.Of(tt.total); got != tt.want || tt.v.String() != tt.str {
			t.Errorf("%s of %d = %d (%s), want %d", tt.v, tt.total, got, tt.v.String(), tt.want)
		}
	}
}
