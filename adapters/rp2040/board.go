package rp2040

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"herd/domain"
)

// InstanceTypePrefix starts the node.kubernetes.io/instance-type label of
// an RP2040 board: the firmware sends "rp2040-pico".
const InstanceTypePrefix = "rp2040"

// Capacity is what one RP2040 board offers, as the firmware reports it
// in both capacity and allocatable: one CPU, 256 KiB of memory (of the
// chip's 264 KiB of SRAM) and no pods — a Pico runs none.
func Capacity() corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:    resource.MustParse("1"),
		corev1.ResourceMemory: resource.MustParse("256Ki"),
		corev1.ResourcePods:   resource.MustParse("0"),
	}
}

// CheckNode names every way n is not what an RP2040 board registers: its
// kind must be rp2040 (the instance-type label rp2040-*, and herd.dev/kind,
// when given, rp2040), and its capacity and allocatable, when given, an
// RP2040's exactly (Capacity). Nothing that speaks without credentials
// may pass for a bigger machine: the scheduler would place pods on it.
// nil when n is a Pico's Node.
func CheckNode(n *corev1.Node) []domain.FieldError {
	var errs []domain.FieldError
	const instanceType = "metadata.labels[" + corev1.LabelInstanceTypeStable + "]"
	if it, ok := n.Labels[corev1.LabelInstanceTypeStable]; !ok {
		errs = append(errs, domain.FieldError{Field: instanceType,
			Reason: fmt.Sprintf("Required value: only RP2040 boards register here (%s-pico)", InstanceTypePrefix)})
	} else if !strings.HasPrefix(it, InstanceTypePrefix) {
		errs = append(errs, domain.FieldError{Field: instanceType, Value: it,
			Reason: fmt.Sprintf("only RP2040 boards register here (%s-pico)", InstanceTypePrefix)})
	}
	if k, ok := n.Labels[domain.LabelKind]; ok && k != string(domain.KindRP2040) {
		errs = append(errs, domain.FieldError{Field: "metadata.labels[" + domain.LabelKind + "]", Value: k,
			Reason: fmt.Sprintf("only %s nodes register here", domain.KindRP2040)})
	}
	errs = append(errs, checkResources("status.capacity", n.Status.Capacity)...)
	return append(errs, checkResources("status.allocatable", n.Status.Allocatable)...)
}

// checkResources names every resource of got, at field, that is not an
// RP2040's; an empty list is none given and passes.
func checkResources(field string, got corev1.ResourceList) []domain.FieldError {
	if len(got) == 0 {
		return nil
	}
	want := Capacity()
	var errs []domain.FieldError
	for _, name := range slices.Sorted(maps.Keys(mergedKeys(want, got))) {
		f := fmt.Sprintf("%s[%s]", field, name)
		w, known := want[name]
		g, given := got[name]
		switch {
		case !known:
			errs = append(errs, domain.FieldError{Field: f, Value: g.String(), Reason: "an RP2040 has none"})
		case !given:
			errs = append(errs, domain.FieldError{Field: f, Reason: fmt.Sprintf("Required value: an RP2040 has %s", w.String())})
		case g.Cmp(w) != 0:
			errs = append(errs, domain.FieldError{Field: f, Value: g.String(), Reason: fmt.Sprintf("an RP2040 has %s", w.String())})
		}
	}
	return errs
}

// mergedKeys is the set of resource names of a and b.
func mergedKeys(a, b corev1.ResourceList) map[corev1.ResourceName]struct{} {
	out := make(map[corev1.ResourceName]struct{}, len(a)+len(b))
	for k := range a {
		out[k] = struct{}{}
	}
	for k := range b {
		out[k] = struct{}{}
	}
	return out
}
