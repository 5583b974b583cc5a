package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecideDeleteNode(t *testing.T) {
	now := at(60)
	deleted := fold(ready(t, "web-01"), NodeDeleted{At: at(30)})
	tests := []struct {
		name    string
		node    Node
		want    []Event
		wantErr error
	}{
		{name: "a ready node", node: ready(t, "web-01"), want: []Event{NodeDeleted{At: now}}},
		{name: "a stopped node", node: fold(registered("web-01"), NodeDeregistered{At: at(5)}), want: []Event{NodeDeleted{At: now}}},
		{name: "unknown node", node: Node{Name: "ghost"}, wantErr: ErrNotFound},
		{name: "already deleted", node: deleted, wantErr: ErrNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecideNode(tc.node, DeleteNode{}, now)
			checkDecision(t, got, err, tc.want, tc.wantErr)
		})
	}
}

func TestDeletedNodeIsATombstone(t *testing.T) {
	n := ready(t, "web-01")
	n.ResourceVersion = 42
	got := fold(n, NodeDeleted{At: at(30)})
	want := Node{Name: "web-01", Deleted: true, Version: n.Version + 1, ResourceVersion: 42}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tombstone (-want +got):\n%s", diff)
	}
	if got.Exists() {
		t.Error("a deleted node exists")
	}
}
