package domain

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"time"
)

// CreatePod creates a pod through herd's API. Defaults are applied as
// Kubernetes applies them: a 30 s termination grace period unless one is
// given, and the default not-ready and unreachable tolerations (NoExecute,
// 300 s) unless the pod tolerates those taints itself. A pod created with
// spec.nodeName is bound to that node at once.
type CreatePod struct {
	Namespace   string
	Name        string
	UID         string
	Labels      map[string]string
	Annotations map[string]string
	Finalizers  []string
	Owners      []OwnerReference
	// Spec is the pod's spec; its TerminationGracePeriodSeconds is
	// ignored in favour of the field below, which can say "unset".
	Spec PodSpec
	// TerminationGracePeriodSeconds is the grace period, nil for the
	// default.
	TerminationGracePeriodSeconds *int64
}

func (c CreatePod) decidePod(p Pod, now time.Time) ([]Event, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	if p.Exists() {
		return nil, fmt.Errorf("pod %q: %w", c.Namespace+"/"+c.Name, ErrAlreadyExists)
	}
	spec := c.Spec.clone()
	spec.TerminationGracePeriodSeconds = DefaultTerminationGracePeriodSeconds
	if c.TerminationGracePeriodSeconds != nil {
		spec.TerminationGracePeriodSeconds = *c.TerminationGracePeriodSeconds
	}
	spec.Tolerations = withDefaultTolerations(spec.Tolerations)
	nodeName := spec.NodeName
	spec.NodeName = ""
	evs := []Event{PodCreated{
		Namespace: c.Namespace, Name: c.Name, UID: c.UID,
		Labels: cloneStrings(c.Labels), Annotations: cloneStrings(c.Annotations),
		Finalizers: cloneSlice(c.Finalizers), Owners: cloneSlice(c.Owners), Spec: spec, At: now,
	}}
	if nodeName != "" {
		evs = append(evs, PodScheduled{NodeName: nodeName, At: now})
	}
	return evs, nil
}

// validate collects every problem with the pod into one *InvalidError.
func (c CreatePod) validate() error {
	var errs []FieldError
	errs = append(errs, objectNameProblems(c.Namespace, c.Name)...)
	if c.UID == "" {
		errs = append(errs, FieldError{Field: "metadata.uid", Reason: "required"})
	}
	errs = append(errs, metadataProblems(c.Labels, c.Annotations)...)
	errs = append(errs, podSpecProblems(c.Spec)...)
	if g := c.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		errs = append(errs, FieldError{Field: "spec.terminationGracePeriodSeconds", Value: strconv.FormatInt(*g, 10), Reason: "must be greater than or equal to 0"})
	}
	return invalid("Pod", c.Name, errs)
}

// objectNameProblems checks a namespaced object's namespace (an RFC 1123
// label) and name (an RFC 1123 subdomain).
func objectNameProblems(namespace, name string) []FieldError {
	var errs []FieldError
	switch {
	case namespace == "":
		errs = append(errs, FieldError{Field: "metadata.namespace", Reason: "required"})
	case len(namespace) > dns1123LabelMaxLength:
		errs = append(errs, FieldError{Field: "metadata.namespace", Value: namespace, Reason: "must be no more than 63 characters"})
	case !isDNSLabelPart(namespace):
		errs = append(errs, FieldError{Field: "metadata.namespace", Value: namespace, Reason: dns1123LabelMsg})
	}
	if name == "" {
		return append(errs, FieldError{Field: "metadata.name", Reason: "required"})
	}
	for _, msg := range dns1123SubdomainProblems(name) {
		errs = append(errs, FieldError{Field: "metadata.name", Value: name, Reason: msg})
	}
	return errs
}

// podSpecProblems checks containers, resources, the node selector and the
// tolerations.
func podSpecProblems(s PodSpec) []FieldError {
	var errs []FieldError
	if len(s.Containers) == 0 {
		errs = append(errs, FieldError{Field: "spec.containers", Reason: "Required value"})
	}
	switch s.RestartPolicy {
	case "", RestartAlways, RestartOnFailure, RestartNever:
	default:
		errs = append(errs, FieldError{Field: "spec.restartPolicy", Value: string(s.RestartPolicy), Reason: `Unsupported value: supported values: "Always", "Never", "OnFailure"`})
	}
	seen := map[string]bool{}
	for i, k := range s.Containers {
		path := fmt.Sprintf("spec.containers[%d]", i)
		switch {
		case k.Name == "":
			errs = append(errs, FieldError{Field: path + ".name", Reason: "Required value"})
		case len(k.Name) > 63 || !isDNSLabelPart(k.Name):
			errs = append(errs, FieldError{Field: path + ".name", Value: k.Name, Reason: "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"})
		case seen[k.Name]:
			errs = append(errs, FieldError{Field: path + ".name", Value: k.Name, Reason: "Duplicate value"})
		}
		seen[k.Name] = true
		errs = append(errs, resourceProblems(path+".resources.limits", k.Limits, nil)...)
		for _, name := range slices.Sorted(maps.Keys(k.Requests)) {
			v := k.Requests[name]
			field := path + ".resources.requests[" + name + "]"
			if v < 0 {
				errs = append(errs, FieldError{Field: field, Value: strconv.FormatInt(v, 10), Reason: "must not be negative"})
			} else if lim, ok := k.Limits[name]; ok && v > lim {
				errs = append(errs, FieldError{Field: field, Value: strconv.FormatInt(v, 10), Reason: fmt.Sprintf("must be less than or equal to %s limit of %d", name, lim)})
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.NodeSelector)) {
		for _, msg := range qualifiedNameProblems(k) {
			errs = append(errs, FieldError{Field: "spec.nodeSelector", Value: k, Reason: msg})
		}
		for _, msg := range labelValueProblems(s.NodeSelector[k]) {
			errs = append(errs, FieldError{Field: "spec.nodeSelector", Value: s.NodeSelector[k], Reason: msg})
		}
	}
	if s.NodeName != "" {
		for _, msg := range dns1123SubdomainProblems(s.NodeName) {
			errs = append(errs, FieldError{Field: "spec.nodeName", Value: s.NodeName, Reason: msg})
		}
	}
	errs = append(errs, tolerationProblems(s.Tolerations)...)
	if z := s.Zone; z != nil {
		volumes := map[string]bool{}
		for i, v := range z.Volumes {
			path := fmt.Sprintf("spec.zone.volumes[%d]", i)
			// A volume's name becomes a ZFS dataset name on the host, so it
			// is held to an RFC 1123 label, as Kubernetes' volume names are.
			switch {
			case v.Name == "":
				errs = append(errs, FieldError{Field: path + ".name", Reason: "Required value"})
			case len(v.Name) > 63 || !isDNSLabelPart(v.Name):
				errs = append(errs, FieldError{Field: path + ".name", Value: v.Name, Reason: "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"})
			case volumes[v.Name]:
				errs = append(errs, FieldError{Field: path + ".name", Value: v.Name, Reason: "Duplicate value"})
			}
			volumes[v.Name] = true
			if len(v.MountPath) == 0 || v.MountPath[0] != '/' {
				errs = append(errs, FieldError{Field: path + ".mountPath", Value: v.MountPath, Reason: "must be an absolute path"})
			}
			if v.SizeBytes < 0 {
				errs = append(errs, FieldError{Field: path + ".sizeBytes", Value: strconv.FormatInt(v.SizeBytes, 10), Reason: "must not be negative"})
			}
		}
	}
	return errs
}
