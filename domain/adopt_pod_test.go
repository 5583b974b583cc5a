package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestAdoptAndReleasePod(t *testing.T) {
	rs := OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-1", Controller: true}
	other := OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "api", UID: "rs-2", Controller: true}
	cm := OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "cfg", UID: "cm-1"}
	orphan := podAfter(t, t0, createPod("web"))
	withOwners := func(owners ...OwnerReference) Pod {
		p := orphan
		p.Owners = owners
		return p
	}
	leaving := podAfter(t, t0, createPod("web"), BindPod{NodeName: "n1"}, DeletePod{})
	observed := podAfter(t, t0, ObservePod{Namespace: "kube-system", Name: "dns", Spec: PodSpec{NodeName: "n1"}})
	notController := rs
	notController.Controller = false

	tests := []struct {
		name    string
		p       Pod
		cmd     PodCommand
		want    []Event
		wantErr error
	}{
		{"adopt an orphan", orphan, AdoptPod{Owner: rs}, []Event{PodOwnersChanged{Owners: []OwnerReference{rs}, At: at(1)}}, nil},
		{"adopt keeps other owners", withOwners(cm), AdoptPod{Owner: rs}, []Event{PodOwnersChanged{Owners: []OwnerReference{cm, rs}, At: at(1)}}, nil},
		{"adopt replaces a reference to the same owner", withOwners(notController, cm), AdoptPod{Owner: rs},
			[]Event{PodOwnersChanged{Owners: []OwnerReference{cm, rs}, At: at(1)}}, nil},
		{"adopt again", withOwners(rs), AdoptPod{Owner: rs}, nil, nil},
		{"adopt another's pod", withOwners(other), AdoptPod{Owner: rs}, nil, ErrConflict},
		{"adopt a pod being deleted", leaving, AdoptPod{Owner: rs}, nil, ErrConflict},
		{"adopt without being its controller", orphan, AdoptPod{Owner: notController}, nil, ErrInvalid},
		{"adopt with no uid", orphan, AdoptPod{Owner: OwnerReference{Kind: "ReplicaSet", Name: "web", Controller: true}}, nil, ErrInvalid},
		{"adopt an observed pod", observed, AdoptPod{Owner: rs}, nil, ErrConflict},
		{"adopt nothing", Pod{Namespace: "default", Name: "gone"}, AdoptPod{Owner: rs}, nil, ErrNotFound},
		{"release", withOwners(cm, rs), ReleasePod{UID: rs.UID}, []Event{PodOwnersChanged{Owners: []OwnerReference{cm}, At: at(1)}}, nil},
		{"release the last owner", withOwners(rs), ReleasePod{UID: rs.UID}, []Event{PodOwnersChanged{At: at(1)}}, nil},
		{"release a pod not owned", withOwners(other), ReleasePod{UID: rs.UID}, nil, nil},
		{"release with no uid", withOwners(rs), ReleasePod{}, nil, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecidePod(tt.p, tt.cmd, at(1))
			checkDecided(t, evs, err, tt.wantErr, len(tt.want))
			if diff := cmp.Diff(tt.want, evs); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPodOwnersChangedEvolves(t *testing.T) {
	rs := OwnerReference{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web", UID: "rs-1", Controller: true}
	p := podAfter(t, t0, createPod("web"), AdoptPod{Owner: rs})
	if c, ok := p.Controller(); !ok || c != rs {
		t.Fatalf("controller after adoption: %+v %v", c, ok)
	}
	p = podAfter(t, t0, createPod("web"), AdoptPod{Owner: rs}, ReleasePod{UID: rs.UID})
	if c, ok := p.Controller(); ok || p.Owners != nil {
		t.Errorf("after release: controller %+v, owners %v", c, p.Owners)
	}
}
