package domain

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRegistrationValidation(t *testing.T) {
	long63 := strings.Repeat("a", 63)
	tests := []struct {
		name   string
		change func(r *Registration)
		want   []FieldError
	}{
		{name: "valid", change: func(*Registration) {}},
		{
			name:   "no name",
			change: func(r *Registration) { r.Name = "" },
			want:   []FieldError{{Field: "metadata.name", Reason: "required"}},
		},
		{name: "dotted name", change: func(r *Registration) { r.Name = "web-01.rack-3.example.com" }},
		{name: "253 characters", change: func(r *Registration) { r.Name = strings.Repeat(long63+".", 3) + strings.Repeat("b", 61) }},
		{
			name:   "254 characters",
			change: func(r *Registration) { r.Name = strings.Repeat(long63+".", 3) + strings.Repeat("b", 62) },
			want:   []FieldError{{Field: "metadata.name", Value: strings.Repeat(long63+".", 3) + strings.Repeat("b", 62), Reason: "must be no more than 253 characters"}},
		},
		{
			name:   "upper case and underscore",
			change: func(r *Registration) { r.Name = "Web_01" },
			want:   []FieldError{{Field: "metadata.name", Value: "Web_01", Reason: dns1123SubdomainMsg}},
		},
		{
			name:   "part ending in a dash",
			change: func(r *Registration) { r.Name = "web-.rack" },
			want:   []FieldError{{Field: "metadata.name", Value: "web-.rack", Reason: dns1123SubdomainMsg}},
		},
		{
			name:   "empty part",
			change: func(r *Registration) { r.Name = "web..rack" },
			want:   []FieldError{{Field: "metadata.name", Value: "web..rack", Reason: dns1123SubdomainMsg}},
		},
		{
			name:   "no kind",
			change: func(r *Registration) { r.Kind = "" },
			want:   []FieldError{{Field: "kind", Reason: "required"}},
		},
		{
			name:   "unknown kind",
			change: func(r *Registration) { r.Kind = "windows" },
			want:   []FieldError{{Field: "kind", Value: "windows", Reason: `supported values: "kubelet", "illumos", "rp2040", "linux"`}},
		},
		{
			name:   "bad label key and value",
			change: func(r *Registration) { r.Labels = map[string]string{"-zone": "a", "rack": "-3-"} },
			want: []FieldError{
				{Field: "metadata.labels", Value: "-zone", Reason: "name part " + qualifiedNameCharsMsg},
				{Field: "metadata.labels", Value: "-3-", Reason: labelValueMsg},
			},
		},
		{
			name:   "label value of 64 characters",
			change: func(r *Registration) { r.Labels = map[string]string{"rack": long63 + "x"} },
			want:   []FieldError{{Field: "metadata.labels", Value: long63 + "x", Reason: "must be no more than 63 characters"}},
		},
		{
			name:   "empty label value and prefixed keys are fine",
			change: func(r *Registration) { r.Labels = map[string]string{"gpu": "", "topology.kubernetes.io/zone": long63} },
		},
		{
			name:   "label key with a name part of 64 characters",
			change: func(r *Registration) { r.Labels = map[string]string{"herd.io/" + long63 + "x": ""} },
			want:   []FieldError{{Field: "metadata.labels", Value: "herd.io/" + long63 + "x", Reason: "name part must be no more than 63 characters"}},
		},
		{
			name: "bad annotation keys",
			change: func(r *Registration) {
				r.Annotations = map[string]string{"Example.com/x": "", "a/b/c": "", "/x": "", "x/": ""}
			},
			want: []FieldError{
				{Field: "metadata.annotations", Value: "/x", Reason: "prefix part must be non-empty"},
				{Field: "metadata.annotations", Value: "Example.com/x", Reason: "prefix part " + dns1123SubdomainMsg},
				{Field: "metadata.annotations", Value: "a/b/c", Reason: qualifiedNameMsg},
				{Field: "metadata.annotations", Value: "x/", Reason: "name part must be non-empty"},
			},
		},
		{
			name:   "annotations over 256 KiB",
			change: func(r *Registration) { r.Annotations = map[string]string{"big": strings.Repeat("x", 256*1024)} },
			want:   []FieldError{{Field: "metadata.annotations", Reason: "Too long: must have at most 262144 bytes"}},
		},
		{
			name: "addresses without type or address",
			change: func(r *Registration) {
				r.Addresses = []Address{{Type: "InternalIP", Address: "10.0.0.1"}, {Address: "x"}, {Type: "Hostname"}}
			},
			want: []FieldError{
				{Field: "status.addresses[1].type", Reason: "required"},
				{Field: "status.addresses[2].address", Reason: "required"},
			},
		},
		{
			name: "negative capacity and allocatable above capacity",
			change: func(r *Registration) {
				r.Capacity = ResourceList{"cpu": -1, "memory": 100}
				r.Allocatable = ResourceList{"memory": 101, "pods": 5}
			},
			want: []FieldError{
				{Field: "status.capacity[cpu]", Value: "-1", Reason: "must not be negative"},
				{Field: "status.allocatable[memory]", Value: "101", Reason: "must not exceed capacity (100)"},
			},
		},
		{
			name:   "bad resource name",
			change: func(r *Registration) { r.Capacity = ResourceList{"": 1} },
			want:   []FieldError{{Field: "status.capacity", Reason: "name part must be non-empty"}},
		},
		{
			name:   "negative max jobs",
			change: func(r *Registration) { r.MaxJobs = -1 },
			want:   []FieldError{{Field: "maxJobs", Value: "-1", Reason: "must not be negative"}},
		},
		{
			name:   "kubelet port out of range",
			change: func(r *Registration) { r.KubeletPort = 65536 },
			want:   []FieldError{{Field: "status.daemonEndpoints.kubeletEndpoint.Port", Value: "65536", Reason: "must be between 0 and 65535, inclusive"}},
		},
		{
			name: "every problem at once",
			change: func(r *Registration) {
				*r = Registration{Name: "a_b", Labels: map[string]string{"k": "-"}, MaxJobs: -2, KubeletPort: -1}
			},
			want: []FieldError{
				{Field: "metadata.name", Value: "a_b", Reason: dns1123SubdomainMsg},
				{Field: "kind", Reason: "required"},
				{Field: "metadata.labels", Value: "-", Reason: labelValueMsg},
				{Field: "maxJobs", Value: "-2", Reason: "must not be negative"},
				{Field: "status.daemonEndpoints.kubeletEndpoint.Port", Value: "-1", Reason: "must be between 0 and 65535, inclusive"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := registration("web-01")
			tc.change(&r)
			events, err := DecideNode(Node{}, RegisterNode{Registration: r}, t0)
			if err != nil && events != nil {
				t.Errorf("rejected registration returned events %v", events)
			}
			if diff := cmp.Diff(tc.want, fieldErrors(t, err)); diff != "" {
				t.Errorf("field errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInvalidErrorMessage(t *testing.T) {
	_, err := DecideNode(Node{}, RegisterNode{Registration: Registration{Name: "Web_01", MaxJobs: -1}}, t0)
	want := `Node "Web_01" is invalid: metadata.name: Invalid value: "Web_01": ` + dns1123SubdomainMsg +
		`, kind: required, maxJobs: Invalid value: "-1": must not be negative`
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}
