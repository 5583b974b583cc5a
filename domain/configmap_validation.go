package domain

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Limits and rules of Kubernetes' ConfigMap validation
// (k8s.io/kubernetes/pkg/apis/core/validation), so that what kubectl users
// write is accepted or refused exactly as a cluster would.
const (
	// dns1123LabelMaxLength bounds a namespace name.
	dns1123LabelMaxLength = 63
	// configMapKeyMaxLength bounds a data key (IsConfigMapKey).
	configMapKeyMaxLength = 253
	// configMapMaxBytes is the most data and binaryData may hold together:
	// Kubernetes' MaxSecretSize, which applies to ConfigMaps too (1 MiB).
	configMapMaxBytes = 1 << 20

	dns1123LabelMsg = "a lowercase RFC 1123 label must consist of lower case alphanumeric " +
		"characters or '-', and must start and end with an alphanumeric character"
	configMapKeyMsg = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
)

// configMapSpecProblems checks data keys, that no key is in both data
// and binaryData, and the total size: the ConfigMap strategy's Validate.
func configMapSpecProblems(c ConfigMapSpec) []FieldError {
	var errs []FieldError
	size := 0
	for _, k := range slices.Sorted(maps.Keys(c.Data)) {
		size += len(k) + len(c.Data[k])
		for _, msg := range configMapKeyProblems(k) {
			errs = append(errs, FieldError{Field: "data[" + k + "]", Value: k, Reason: msg})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.BinaryData)) {
		size += len(k) + len(c.BinaryData[k])
		for _, msg := range configMapKeyProblems(k) {
			errs = append(errs, FieldError{Field: "binaryData[" + k + "]", Value: k, Reason: msg})
		}
		if _, dup := c.Data[k]; dup {
			errs = append(errs, FieldError{Field: "data[" + k + "]", Value: k, Reason: "duplicate of key present in binaryData"})
		}
	}
	if size > configMapMaxBytes {
		errs = append(errs, FieldError{Field: "data", Reason: fmt.Sprintf("Too long: must have at most %d bytes", configMapMaxBytes)})
	}
	return errs
}

// configMapKeyProblems checks a data key: 1 to 253 characters of
// [-._a-zA-Z0-9], and not ".", ".." or anything starting with "..".
func configMapKeyProblems(k string) []string {
	var out []string
	if k == "" {
		return []string{"required"}
	}
	if len(k) > configMapKeyMaxLength {
		out = append(out, "must be no more than 253 characters")
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			out = append(out, configMapKeyMsg)
			break
		}
	}
	switch {
	case k == ".":
		out = append(out, "must not be '.'")
	case k == "..":
		out = append(out, "must not be '..'")
	case strings.HasPrefix(k, ".."):
		out = append(out, "must not start with '..'")
	}
	return out
}
