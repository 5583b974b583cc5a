package domain

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Field paths in a rejected registration follow the Kubernetes Node object
// where it has the field, so that an API client sees the path of what it
// sent: metadata.name, metadata.labels, metadata.annotations,
// status.addresses[i].type, status.addresses[i].address,
// status.capacity[name], status.allocatable[name] and
// status.daemonEndpoints.kubeletEndpoint.Port. herd's own fields are named
// plainly: kind and maxJobs, except that a kind given as the herd.dev/kind
// label is named by the label's path, metadata.labels[herd.dev/kind].

// totalAnnotationSizeLimit is Kubernetes' limit on the summed size of an
// object's annotation keys and values (apimachinery's
// TotalAnnotationSizeLimitB): 256 KiB.
const totalAnnotationSizeLimit = 256 * 1024

// validateRegistration collects every problem with r into one *InvalidError,
// or returns nil.
func validateRegistration(r Registration) error {
	var errs []FieldError
	switch r.Name {
	case "":
		errs = append(errs, FieldError{Field: "metadata.name", Reason: "required"})
	default:
		for _, msg := range dns1123SubdomainProblems(r.Name) {
			errs = append(errs, FieldError{Field: "metadata.name", Value: r.Name, Reason: msg})
		}
	}
	// A client that named the kind with the herd.dev/kind label reads the
	// label's path in a rejection; one that contradicts it, that the label
	// is herd's.
	kindField := "kind"
	if v, ok := r.Labels[LabelKind]; ok && v == string(r.Kind) {
		kindField = "metadata.labels[" + LabelKind + "]"
	}
	switch {
	case r.Kind == "":
		errs = append(errs, FieldError{Field: kindField, Reason: "required"})
	case !slices.Contains(Kinds, r.Kind):
		errs = append(errs, FieldError{Field: kindField, Value: string(r.Kind), Reason: "supported values: " + kindList()})
	}
	errs = append(errs, derivedLabelProblems(r.Labels, Node{Kind: r.Kind})...)
	errs = append(errs, metadataProblems(r.Labels, r.Annotations)...)
	for i, a := range r.Addresses {
		if a.Type == "" {
			errs = append(errs, FieldError{Field: fmt.Sprintf("status.addresses[%d].type", i), Reason: "required"})
		}
		if a.Address == "" {
			errs = append(errs, FieldError{Field: fmt.Sprintf("status.addresses[%d].address", i), Reason: "required"})
		}
	}
	errs = append(errs, resourceProblems("status.capacity", r.Capacity, nil)...)
	errs = append(errs, resourceProblems("status.allocatable", r.Allocatable, r.Capacity)...)
	if r.MaxJobs < 0 {
		errs = append(errs, FieldError{Field: "maxJobs", Value: strconv.Itoa(r.MaxJobs), Reason: "must not be negative"})
	}
	if r.KubeletPort < 0 || r.KubeletPort > 65535 {
		errs = append(errs, FieldError{
			Field: "status.daemonEndpoints.kubeletEndpoint.Port", Value: strconv.Itoa(int(r.KubeletPort)),
			Reason: "must be between 0 and 65535, inclusive",
		})
	}
	return invalid("Node", r.Name, errs)
}

// metadataProblems checks label keys and values and annotation keys by the
// Kubernetes rules, in key order so that the same input always gives the
// same error.
func metadataProblems(labels, annotations map[string]string) []FieldError {
	errs := inKeyOrder(labels, func(k, v string) (errs []FieldError) {
		for _, msg := range qualifiedNameProblems(k) {
			errs = append(errs, FieldError{Field: "metadata.labels", Value: k, Reason: msg})
		}
		for _, msg := range labelValueProblems(v) {
			errs = append(errs, FieldError{Field: "metadata.labels", Value: v, Reason: msg})
		}
		return errs
	})
	errs = append(errs, inKeyOrder(annotations, func(k, _ string) (errs []FieldError) {
		for _, msg := range qualifiedNameProblems(k) {
			errs = append(errs, FieldError{Field: "metadata.annotations", Value: k, Reason: msg})
		}
		return errs
	})...)
	size := 0
	for k, v := range annotations {
		size += len(k) + len(v)
	}
	if size > totalAnnotationSizeLimit {
		errs = append(errs, FieldError{
			Field:  "metadata.annotations",
			Reason: fmt.Sprintf("Too long: must have at most %d bytes", totalAnnotationSizeLimit),
		})
	}
	return errs
}

// resourceProblems checks a resource list: names are qualified names,
// quantities are not negative and, when limit is given, do not exceed the
// limit's quantity of the same name.
func resourceProblems(path string, r, limit ResourceList) []FieldError {
	return inKeyOrder(r, func(name string, v int64) (errs []FieldError) {
		for _, msg := range qualifiedNameProblems(name) {
			errs = append(errs, FieldError{Field: path, Value: name, Reason: msg})
		}
		if v < 0 {
			return append(errs, FieldError{Field: path + "[" + name + "]", Value: strconv.FormatInt(v, 10), Reason: "must not be negative"})
		}
		if max, ok := limit[name]; ok && v > max {
			errs = append(errs, FieldError{
				Field: path + "[" + name + "]", Value: strconv.FormatInt(v, 10),
				Reason: fmt.Sprintf("must not exceed capacity (%d)", max),
			})
		}
		return errs
	})
}

// inKeyOrder is what check finds wrong with m's entries, in key order so
// that the same input always gives the same error. The entries with
// nothing wrong, nearly all of what a kubelet registers, are neither
// sorted nor copied: a map with nothing wrong is checked without building
// anything. check is called again for an entry it found wrong.
func inKeyOrder[V any](m map[string]V, check func(k string, v V) []FieldError) []FieldError {
	var wrong []string
	for k, v := range m {
		if check(k, v) != nil {
			wrong = append(wrong, k)
		}
	}
	slices.Sort(wrong)
	var errs []FieldError
	for _, k := range wrong {
		errs = append(errs, check(k, m[k])...)
	}
	return errs
}

// kindList renders Kinds for an error message: "kubelet", "illumos", ...
func kindList() string {
	quoted := make([]string, len(Kinds))
	for i, k := range Kinds {
		quoted[i] = strconv.Quote(string(k))
	}
	return strings.Join(quoted, ", ")
}
