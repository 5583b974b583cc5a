package domain

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDerivedLabelsAreStored: the kind label is part of the node's state,
// from a registration of today or one recorded before herd stored it, and
// a change of the node's labels keeps it.
func TestDerivedLabelsAreStored(t *testing.T) {
	reg := registration("zone-01")
	tests := []struct {
		name string
		// start is the node before the events; empty by default.
		start  Node
		events []Event
		want   map[string]string
	}{
		{
			name:   "registered",
			events: []Event{NodeRegistered{Registration: reg, At: t0}},
			want:   map[string]string{"herd.io/pool": "builders", "zone": "a", LabelKind: "illumos"},
		},
		{
			name:   "registered without labels, as an old log may hold it",
			events: []Event{NodeRegistered{Registration: Registration{Name: "zone-01", Kind: KindIllumos}, At: t0}},
			want:   map[string]string{LabelKind: "illumos"},
		},
		{
			name: "restarted as another kind",
			events: []Event{
				NodeRegistered{Registration: reg, At: t0},
				NodeRestarted{Registration: Registration{Name: "zone-01", Kind: KindLinux}, RestartCount: 1, At: at(1)},
			},
			want: map[string]string{LabelKind: "linux"},
		},
		{
			name:   "a heartbeat on a node stored before herd stored its kind label",
			start:  Node{Name: "zone-01", Kind: KindIllumos, Labels: map[string]string{"zone": "a"}, Version: 1},
			events: []Event{HeartbeatRecorded{At: at(1)}},
			want:   map[string]string{"zone": "a", LabelKind: "illumos"},
		},
		{
			name: "labels replaced by a client",
			events: []Event{
				NodeRegistered{Registration: reg, At: t0},
				NodeLabelsChanged{Labels: map[string]string{"herd.dev/demo": "true"}, At: at(1)},
			},
			want: map[string]string{"herd.dev/demo": "true", LabelKind: "illumos"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.start
			for _, e := range tc.events {
				n = EvolveNode(n, e)
			}
			if diff := cmp.Diff(tc.want, n.Labels); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReservedLabels: a client may repeat herd's kind label but not change
// it, and its own herd.dev/ labels are its own.
func TestReservedLabels(t *testing.T) {
	mislabelled := registration("zone-01")
	mislabelled.Labels = map[string]string{LabelKind: "linux"}
	toaster := registration("zone-01")
	toaster.Kind, toaster.Labels = "toaster", map[string]string{LabelKind: "toaster"}
	echoed := registration("zone-01")
	echoed.Labels = map[string]string{LabelKind: "illumos", "herd.dev/demo": "true"}

	tests := []struct {
		name      string
		node      Node
		cmd       NodeCommand
		want      []Event
		wantField string
	}{
		{
			name: "a label update that changes the kind label",
			node: registered("zone-01"),
			cmd:  SetNodeLabels{Labels: map[string]string{LabelKind: "linux", "zone": "a"}},
			// The path names the key, as the API client wrote it.
			wantField: "metadata.labels[herd.dev/kind]",
		},
		{
			name: "a label update that repeats the kind label",
			node: registered("zone-01"),
			cmd:  SetNodeLabels{Labels: map[string]string{LabelKind: "illumos", "herd.dev/demo": "true"}},
			want: []Event{NodeLabelsChanged{Labels: map[string]string{"herd.dev/demo": "true"}, At: at(1)}},
		},
		{
			name: "a label update that only echoes the node's labels",
			node: registered("zone-01"),
			cmd: SetNodeLabels{
				Labels:      map[string]string{LabelKind: "illumos", "herd.io/pool": "builders", "zone": "a"},
				Annotations: registration("zone-01").Annotations,
			},
		},
		{
			name:      "a registration whose kind label contradicts its kind",
			node:      Node{Name: "zone-01"},
			cmd:       RegisterNode{Registration: mislabelled},
			wantField: "metadata.labels[herd.dev/kind]",
		},
		{
			name:      "a registration naming an unknown kind with the label",
			node:      Node{Name: "zone-01"},
			cmd:       RegisterNode{Registration: toaster},
			wantField: "metadata.labels[herd.dev/kind]",
		},
		{
			name: "a registration naming its kind with the label",
			node: Node{Name: "zone-01"},
			cmd:  RegisterNode{Registration: echoed},
			want: []Event{NodeRegistered{Registration: func() Registration {
				r := registration("zone-01")
				r.Labels = map[string]string{"herd.dev/demo": "true"}
				return r
			}(), At: at(1)}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecideNode(tc.node, tc.cmd, at(1))
			if tc.wantField == "" {
				checkDecision(t, got, err, tc.want, nil)
				return
			}
			var inv *InvalidError
			if !errors.As(err, &inv) || !errors.Is(err, ErrInvalid) {
				t.Fatalf("error = %v, want an InvalidError", err)
			}
			if len(inv.Fields) != 1 || inv.Fields[0].Field != tc.wantField {
				t.Errorf("fields = %+v, want one naming %s", inv.Fields, tc.wantField)
			}
		})
	}
}
