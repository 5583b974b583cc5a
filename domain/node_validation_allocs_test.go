package domain

import (
	"fmt"
	"strings"
	"testing"
)

// kubeletRegistration is what a kubelet's first POST of its Node becomes:
// its labels and annotations, two addresses, four resources.
func kubeletRegistration() Registration {
	return Registration{
		Name: "worker-0001",
		Kind: KindKubelet,
		Labels: map[string]string{
			"kubernetes.io/hostname": "worker-0001", "kubernetes.io/os": "linux",
			"kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
			"node.kubernetes.io/instance-type": "m5.large", LabelKind: string(KindKubelet),
		},
		Annotations: map[string]string{
			"node.alpha.kubernetes.io/ttl":                           "0",
			"volumes.kubernetes.io/controller-managed-attach-detach": "true",
		},
		Addresses:   []Address{{Type: "InternalIP", Address: "10.0.0.1"}, {Type: "Hostname", Address: "worker-0001"}},
		Capacity:    ResourceList{"cpu": 4000, "memory": 8 << 30, "pods": 110, "ephemeral-storage": 100 << 30},
		Allocatable: ResourceList{"cpu": 3900, "memory": 7 << 30, "pods": 110, "ephemeral-storage": 90 << 30},
		KubeletPort: 10250,
	}
}

// TestAValidRegistrationIsCheckedWithoutBuildingAnything: a registration
// with nothing wrong, what nearly every node sends, is checked without
// sorting its maps or writing field paths no error will carry.
func TestAValidRegistrationIsCheckedWithoutBuildingAnything(t *testing.T) {
	r := kubeletRegistration()
	allocs := testing.AllocsPerRun(100, func() {
		if err := validateRegistration(r); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("validating a kubelet's registration: %.0f allocations, want none", allocs)
	}
}

// TestValidReportedConditionsAreCheckedWithoutPaths: a kubelet's four
// conditions, nothing wrong with them, are checked without writing their
// field paths.
func TestValidReportedConditionsAreCheckedWithoutPaths(t *testing.T) {
	cs := []ReportedCondition{
		{Type: "MemoryPressure", Status: ConditionFalse, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
		{Type: "DiskPressure", Status: ConditionFalse, Reason: "KubeletHasNoDiskPressure", Message: "kubelet has no disk pressure"},
		{Type: "PIDPressure", Status: ConditionFalse, Reason: "KubeletHasSufficientPID", Message: "kubelet has sufficient PID available"},
		{Type: "Ready", Status: ConditionTrue, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
	}
	allocs := testing.AllocsPerRun(100, func() {
		if errs := reportedProblems(cs); errs != nil {
			t.Fatal(errs)
		}
	})
	// The map of types seen is all that is built.
	if allocs > 1 {
		t.Errorf("checking a kubelet's four conditions: %.0f allocations, want at most 1", allocs)
	}
}

// TestProblemsBeyondTheFirstMapKeyAreStillFound: the quick pass that
// finds a registration fine must not hide a problem in any of its maps;
// each is still reported with its field, in key order.
func TestProblemsBeyondTheFirstMapKeyAreStillFound(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spoil func(r *Registration)
		want  string
	}{
		{"a label's key", func(r *Registration) { r.Labels["zz/a/b"] = "v" }, `metadata.labels: Invalid value: "zz/a/b"`},
		{"a label's value", func(r *Registration) { r.Labels["zz"] = "-v" }, `metadata.labels: Invalid value: "-v"`},
		{"an annotation's key", func(r *Registration) { r.Annotations["/x"] = "v" }, "prefix part must be non-empty"},
		{"annotations too large", func(r *Registration) { r.Annotations["big"] = string(make([]byte, totalAnnotationSizeLimit)) }, "Too long: must have at most 262144 bytes"},
		{"a resource's name", func(r *Registration) { r.Capacity["a b"] = 1 }, `status.capacity: Invalid value: "a b"`},
		{"a negative capacity", func(r *Registration) { r.Capacity["pods"] = -1 }, `status.capacity[pods]: Invalid value: "-1"`},
		{"allocatable over capacity", func(r *Registration) { r.Allocatable["pods"] = 111 }, "status.allocatable[pods]: Invalid value: \"111\": must not exceed capacity (110)"},
		{"an address without a type", func(r *Registration) { r.Addresses[1].Type = "" }, "status.addresses[1].type: required"},
		{"an address without an address", func(r *Registration) { r.Addresses[0].Address = "" }, "status.addresses[0].address: required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := kubeletRegistration()
			tc.spoil(&r)
			err := validateRegistration(r)
			if err == nil {
				t.Fatal("accepted")
			}
			if got := fmt.Sprint(err); !strings.Contains(got, tc.want) {
				t.Errorf("error %q does not say %q", got, tc.want)
			}
		})
	}
}
