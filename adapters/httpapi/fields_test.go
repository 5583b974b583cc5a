package httpapi

import (
	"testing"

	"k8s.io/apimachinery/pkg/fields"
)

// TestFieldValuesAnswerAsTheirMaps: the field values the watch hub keeps
// for nodes and namespaced objects select exactly as the maps they
// replace would, for every selector kube-apiserver accepts on them.
func TestFieldValuesAnswerAsTheirMaps(t *testing.T) {
	tests := []struct {
		name      string
		value     fields.Fields
		set       fields.Set
		selectors []string
	}{
		{"cordoned node", nodeFields{"web-01", true},
			fields.Set{"metadata.name": "web-01", "spec.unschedulable": "true"},
			[]string{"metadata.name=web-01", "metadata.name!=web-01", "spec.unschedulable=true", "spec.unschedulable=false", "spec.unschedulable!=true", "status.phase="}},
		{"schedulable node", nodeFields{"web-02", false},
			fields.Set{"metadata.name": "web-02", "spec.unschedulable": "false"},
			[]string{"metadata.name=web-01", "spec.unschedulable=false", "spec.unschedulable=true,metadata.name=web-02"}},
		{"lease", metadataFields{Namespace: "kube-node-lease", Name: "web-01"},
			fields.Set{"metadata.name": "web-01", "metadata.namespace": "kube-node-lease"},
			[]string{"metadata.namespace=kube-node-lease", "metadata.namespace=default", "metadata.name=web-01,metadata.namespace!=default", "spec.nodeName="}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, s := range tt.selectors {
				sel, err := fields.ParseSelector(s)
				if err != nil {
					t.Fatal(err)
				}
				if got, want := sel.Matches(tt.value), sel.Matches(tt.set); got != want {
					t.Errorf("%q matches %v, its map %v", s, got, want)
				}
			}
			for k, v := range tt.set {
				if !tt.value.Has(k) || tt.value.Get(k) != v {
					t.Errorf("%s: Has %v, Get %q; want %q", k, tt.value.Has(k), tt.value.Get(k), v)
				}
			}
		})
	}
}
