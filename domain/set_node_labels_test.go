package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecideSetNodeLabels(t *testing.T) {
	now := at(60)
	bare := registered("web-01")
	// Only herd's own label is left: a node has its kind label always.
	bare.Labels, bare.Annotations = map[string]string{LabelKind: "illumos"}, nil

	tests := []struct {
		name    string
		node    Node
		cmd     SetNodeLabels
		want    []Event
		wantErr error
	}{
		{
			name: "new labels replace the old ones",
			node: registered("web-01"),
			cmd:  SetNodeLabels{Labels: map[string]string{"zone": "b"}, Annotations: map[string]string{"herd.io/owner": "ops team"}},
			want: []Event{NodeLabelsChanged{Labels: map[string]string{"zone": "b"}, Annotations: map[string]string{"herd.io/owner": "ops team"}, At: now}},
		},
		{
			name: "clearing every label",
			node: registered("web-01"),
			cmd:  SetNodeLabels{Annotations: map[string]string{"herd.io/owner": "ops team"}},
			want: []Event{NodeLabelsChanged{Annotations: map[string]string{"herd.io/owner": "ops team"}, At: now}},
		},
		{
			name: "the same sets record nothing",
			node: registered("web-01"),
			cmd:  SetNodeLabels{Labels: registration("web-01").Labels, Annotations: registration("web-01").Annotations},
		},
		{
			name: "empty sets on a node without any record nothing",
			node: bare,
			cmd:  SetNodeLabels{Labels: map[string]string{}, Annotations: map[string]string{}},
		},
		{name: "unknown node", node: Node{Name: "ghost"}, cmd: SetNodeLabels{}, wantErr: ErrNotFound},
		{name: "invalid label", node: registered("web-01"), cmd: SetNodeLabels{Labels: map[string]string{"a b": "c"}}, wantErr: ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecideNode(tc.node, tc.cmd, now)
			checkDecision(t, got, err, tc.want, tc.wantErr)
		})
	}
}

func TestSetNodeLabelsValidation(t *testing.T) {
	cmd := SetNodeLabels{
		Labels:      map[string]string{"ok": "", "herd.io/": "x", "zone": "a b"},
		Annotations: map[string]string{"ok.example.com/fine": "any text at all", "bad key": "x"},
	}
	_, err := DecideNode(registered("web-01"), cmd, at(1))
	want := []FieldError{
		{Field: "metadata.labels", Value: "herd.io/", Reason: "name part must be non-empty"},
		{Field: "metadata.labels", Value: "a b", Reason: labelValueMsg},
		{Field: "metadata.annotations", Value: "bad key", Reason: "name part " + qualifiedNameCharsMsg},
	}
	if diff := cmp.Diff(want, fieldErrors(t, err)); diff != "" {
		t.Errorf("field errors (-want +got):\n%s", diff)
	}
}

func TestSetNodeLabelsKeepsNoReferenceToTheCommand(t *testing.T) {
	labels := map[string]string{"zone": "b"}
	events, err := DecideNode(registered("web-01"), SetNodeLabels{Labels: labels}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	labels["zone"] = "changed later"
	n := fold(registered("web-01"), events...)
	if diff := cmp.Diff(map[string]string{"zone": "b", LabelKind: "illumos"}, n.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
}
