package domain

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func sampleDeploymentSpec() DeploymentSpec {
	rs := sampleRSSpec()
	return DeploymentSpec{
		Replicas: 3, Selector: rs.Selector, Template: rs.Template,
		Strategy:             DeploymentStrategy{Type: RollingUpdateStrategy, MaxSurge: Percents(25), MaxUnavailable: Ints(1)},
		RevisionHistoryLimit: 10, ProgressDeadlineSeconds: 600,
	}
}

func sampleDeploymentEvents() []Event {
	spec := sampleDeploymentSpec()
	return []Event{
		// Owned, as one a client's own controller makes: its owners
		// are kept in the log.
		DeploymentCreated{Namespace: "default", Name: "web", UID: "d-uid", Labels: map[string]string{"app": "web"},
			Owners: []OwnerReference{{APIVersion: "example.com/v1", Kind: "App", Name: "shop", UID: "app-uid", Controller: true}}, Spec: spec, At: at(1)},
		DeploymentChanged{Labels: map[string]string{"app": "web"}, Spec: spec, Generation: 2, At: at(2)},
		DeploymentMetadataChanged{Labels: map[string]string{"app": "web"}, Annotations: map[string]string{ChangeCauseAnnotation: "x"}, Changed: []string{"metadata.annotations." + ChangeCauseAnnotation}, At: at(2)},
		DeploymentStatusRecorded{Status: DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, ObservedGeneration: 2,
			Conditions: []WorkloadCondition{{Type: "Available", Status: "True", Reason: "MinimumReplicasAvailable", LastUpdate: at(3), LastTransition: at(3)}}},
			Revision: "2", At: at(3)},
		DeploymentOwnersChanged{At: at(3)},
		DeploymentDeletionRequested{At: at(4)},
		DeploymentDeleted{Orphan: true, At: at(4)},
	}
}

func createdDeployment(t *testing.T) Deployment {
	t.Helper()
	evs, err := DecideDeployment(Deployment{}, CreateDeployment{Meta: ObjectMeta{Namespace: "default", Name: "web", UID: "d-uid"}, Spec: sampleDeploymentSpec()}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	var d Deployment
	for _, e := range evs {
		d = EvolveDeployment(d, e)
	}
	d.ResourceVersion = 7
	return d
}

func TestDecideDeployment(t *testing.T) {
	d := createdDeployment(t)
	spec := func(edit func(*DeploymentSpec)) DeploymentSpec {
		s := sampleDeploymentSpec()
		edit(&s)
		return s
	}
	scaled := spec(func(s *DeploymentSpec) { s.Replicas = 5 })
	create := func(s DeploymentSpec) CreateDeployment {
		return CreateDeployment{Meta: ObjectMeta{Namespace: "default", Name: "web", UID: "u"}, Spec: s}
	}
	tests := []struct {
		name    string
		d       Deployment
		cmd     DeploymentCommand
		want    []Event
		wantErr error
	}{
		{"create twice", d, create(sampleDeploymentSpec()), nil, ErrAlreadyExists},
		{"no surge and no unavailability", Deployment{}, create(spec(func(s *DeploymentSpec) {
			s.Strategy.MaxSurge, s.Strategy.MaxUnavailable = Ints(0), Percents(0)
		})), nil, ErrInvalid},
		{"a surge over 100%", Deployment{}, create(spec(func(s *DeploymentSpec) { s.Strategy.MaxSurge = Percents(101) })), nil, ErrInvalid},
		{"Recreate with a rolling update", Deployment{}, create(spec(func(s *DeploymentSpec) { s.Strategy.Type = RecreateStrategy })), nil, ErrInvalid},
		{"an unknown strategy", Deployment{}, create(spec(func(s *DeploymentSpec) { s.Strategy.Type = "BlueGreen" })), nil, ErrInvalid},
		{"a deadline within minReadySeconds", Deployment{}, create(spec(func(s *DeploymentSpec) { s.MinReadySeconds = 600 })), nil, ErrInvalid},
		{"a negative history", Deployment{}, create(spec(func(s *DeploymentSpec) { s.RevisionHistoryLimit = -1 })), nil, ErrInvalid},
		{"a template its selector does not select", Deployment{}, create(spec(func(s *DeploymentSpec) { s.Template.Labels = map[string]string{"app": "api"} })), nil, ErrInvalid},
		{"scale", d, ScaleDeployment{Replicas: 5}, []Event{DeploymentChanged{Spec: scaled, Generation: 2, At: at(2)}}, nil},
		{"scale a stale version", d, Precondition[DeploymentCommand]{ResourceVersion: 6, Command: ScaleDeployment{Replicas: 5}}, nil, ErrConflict},
		{"the selector is immutable", d, UpdateDeployment{Spec: spec(func(s *DeploymentSpec) {
			s.Selector = LabelSelector{MatchLabels: map[string]string{"tier": "front"}}
		})}, nil, ErrInvalid},
		{"status and revision", d, RecordDeploymentStatus{Status: DeploymentStatus{Replicas: 3}, Revision: "1"},
			[]Event{DeploymentStatusRecorded{Status: DeploymentStatus{Replicas: 3}, Revision: "1", At: at(2)}}, nil},
		{"the same status", d, RecordDeploymentStatus{}, nil, nil},
		{"delete", d, DeleteDeployment{}, []Event{DeploymentDeleted{At: at(2)}}, nil},
		{"delete in the foreground", d, DeleteDeployment{Propagation: PropagateForeground}, []Event{DeploymentDeletionRequested{At: at(2)}}, nil},
		{"delete orphaning", d, DeleteDeployment{Propagation: PropagateOrphan}, []Event{DeploymentDeleted{Orphan: true, At: at(2)}}, nil},
		{"delete while deleting", EvolveDeployment(d, DeploymentDeletionRequested{At: at(1)}), DeleteDeployment{Propagation: PropagateOrphan}, nil, nil},
		{"finish", EvolveDeployment(d, DeploymentDeletionRequested{At: at(1)}), FinishDeploymentDeletion{}, []Event{DeploymentDeleted{At: at(2)}}, nil},
		{"delete of nothing", Deployment{ObjectMeta: ObjectMeta{Name: "gone"}}, DeleteDeployment{}, nil, ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideDeployment(tt.d, tt.cmd, at(2))
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, evs); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
	if got := EvolveDeployment(d, DeploymentStatusRecorded{Revision: "4"}); got.Annotations[RevisionAnnotation] != "4" {
		t.Errorf("the revision recorded is not the deployment's annotation: %v", got.Annotations)
	}
}

func TestIntOrPercent(t *testing.T) {
	for _, tt := range []struct {
		v       *IntOrPercent
		json    string
		of10    int32
		of10Up  int32
		problem bool
	}{
		{Ints(2), `2`, 2, 2, false},
		{Percents(25), `"25%"`, 2, 3, false},
		{Percents(101), `"101%"`, 10, 11, true},
		{Ints(-1), `-1`, -1, -1, true},
	} {
		data, err := json.Marshal(tt.v)
		if err != nil || string(data) != tt.json {
			t.Errorf("%v: JSON %s, %v, want %s", tt.v, data, err, tt.json)
		}
		var back IntOrPercent
		if err := json.Unmarshal(data, &back); err != nil || back != *tt.v {
			t.Errorf("%s read back as %+v, %v", data, back, err)
		}
		if got := tt.v.Count(10, false); got != tt.of10 {
			t.Errorf("%v of 10 = %d, want %d", tt.v, got, tt.of10)
		}
		if got := tt.v.Count(10, true); got != tt.of10Up {
			t.Errorf("%v of 10 rounded up = %d, want %d", tt.v, got, tt.of10Up)
		}
		if got := len(tt.v.problems("f")) > 0; got != tt.problem {
			t.Errorf("%v: problems %v, want %v", tt.v, got, tt.problem)
		}
	}
	var none *IntOrPercent
	if none.Count(10, true) != 0 || none.problems("f") != nil {
		t.Error("no value is not 0 without a problem")
	}
	if _, err := ParseIntOrPercent("a lot"); err == nil {
		t.Error("\"a lot\" parsed")
	}
}
