package domain

import (
	"fmt"
	"slices"
	"strconv"
)

// The actions of a Job's pod failure policy rule (batch/v1): fail the
// Job at once, ignore the failure (the pod is replaced and not counted
// against the backoff limit), or count it as any failure. batch/v1's
// FailIndex needs per-index backoff, which herd does not have.
const (
	PodFailureFailJob = "FailJob"
	PodFailureIgnore  = "Ignore"
	PodFailureCount   = "Count"
)

// JobReasonPodFailurePolicy is the reason of the condition that fails a
// Job whose failed pod a FailJob rule matched.
const JobReasonPodFailurePolicy = "PodFailurePolicy"

// Limits of a pod failure policy, as batch/v1's validation sets them.
const (
	maxPodFailureRules      = 20
	maxPodFailureExitCodes  = 255
	maxPodFailurePatterns   = 20
	exitCodesOperatorIn     = "In"
	exitCodesOperatorNotIn  = "NotIn"
	podFailurePolicyRuleFmt = "spec.podFailurePolicy.rules[%d]"
)

// JobPodFailurePolicy says what a failed pod of a Job means, by its
// containers' exit codes or its conditions: the first rule that matches
// decides; a failure no rule matches counts.
type JobPodFailurePolicy struct {
	Rules []PodFailurePolicyRule `json:"rules"`
}

// PodFailurePolicyRule is one rule: an action, and either exit codes or
// pod conditions to match.
type PodFailurePolicyRule struct {
	Action          string                        `json:"action"`
	OnExitCodes     *PodFailurePolicyOnExitCodes  `json:"onExitCodes,omitempty"`
	OnPodConditions []PodFailurePolicyOnCondition `json:"onPodConditions,omitempty"`
}

// PodFailurePolicyOnExitCodes matches a pod one of whose containers
// (ContainerName's, when set) ended with a non-zero exit code that is
// (In) or is not (NotIn) among Values.
type PodFailurePolicyOnExitCodes struct {
	ContainerName *string `json:"containerName,omitempty"`
	Operator      string  `json:"operator"`
	Values        []int32 `json:"values"`
}

// PodFailurePolicyOnCondition matches a pod whose condition of Type has
// Status.
type PodFailurePolicyOnCondition struct {
	Type   string          `json:"type"`
	Status ConditionStatus `json:"status"`
}

// defaultPodFailurePolicy is p with what batch/v1 defaults in a policy
// set: a pod condition pattern's status True. p itself is left as it is.
func defaultPodFailurePolicy(p *JobPodFailurePolicy) *JobPodFailurePolicy {
	if p == nil {
		return nil
	}
	out := deepCopy(*p)
	for i := range out.Rules {
		for k := range out.Rules[i].OnPodConditions {
			if out.Rules[i].OnPodConditions[k].Status == "" {
				out.Rules[i].OnPodConditions[k].Status = ConditionTrue
			}
		}
	}
	return &out
}

// podFailurePolicyProblems checks a Job's pod failure policy as
// batch/v1's validation does: pods that never restart, at most 20 rules,
// each with one action herd runs and either exit codes or pod
// conditions; exit codes In or NotIn, 1 to 255 of them, ordered and
// without repeats, never 0 for In, of a container the template has.
func podFailurePolicyProblems(s JobSpec) []FieldError {
	p := s.PodFailurePolicy
	if p == nil {
		return nil
	}
	var errs []FieldError
	bad := func(field, value, reason string) {
		errs = append(errs, FieldError{Field: field, Value: value, Reason: reason})
	}
	if s.Template.Spec.RestartPolicy != RestartNever {
		bad("spec.template.spec.restartPolicy", string(s.Template.Spec.RestartPolicy),
			`only "Never" is supported when podFailurePolicy is specified`)
	}
	if len(p.Rules) > maxPodFailureRules {
		bad("spec.podFailurePolicy.rules", "", fmt.Sprintf("Too many: %d: must have at most %d items", len(p.Rules), maxPodFailureRules))
	}
	containers := map[string]bool{}
	for _, c := range s.Template.Spec.Containers {
		containers[c.Name] = true
	}
	for i, r := range p.Rules {
		at := fmt.Sprintf(podFailurePolicyRuleFmt, i)
		switch r.Action {
		case PodFailureFailJob, PodFailureIgnore, PodFailureCount:
		default:
			bad(at+".action", "", fmt.Sprintf(`Unsupported value: %q: supported values: "Count", "FailJob", "Ignore"`, r.Action))
		}
		switch {
		case r.OnExitCodes != nil && len(r.OnPodConditions) > 0:
			bad(at, "", "Invalid value: specifying both OnExitCodes and OnPodConditions is not supported")
		case r.OnExitCodes == nil && len(r.OnPodConditions) == 0:
			bad(at, "", "Invalid value: specifying one of OnExitCodes and OnPodConditions is required")
		case r.OnExitCodes != nil:
			errs = append(errs, exitCodesProblems(at+".onExitCodes", *r.OnExitCodes, containers)...)
		default:
			if len(r.OnPodConditions) > maxPodFailurePatterns {
				bad(at+".onPodConditions", "", fmt.Sprintf("Too many: %d: must have at most %d items", len(r.OnPodConditions), maxPodFailurePatterns))
			}
			for k, c := range r.OnPodConditions {
				cat := fmt.Sprintf("%s.onPodConditions[%d]", at, k)
				if c.Type == "" {
					bad(cat+".type", "", "Required value")
				}
				for _, why := range qualifiedNameProblems(c.Type) {
					bad(cat+".type", c.Type, why)
				}
				switch c.Status {
				case ConditionTrue, ConditionFalse, ConditionUnknown:
				default:
					bad(cat+".status", "", fmt.Sprintf(`Unsupported value: %q: supported values: "False", "True", "Unknown"`, c.Status))
				}
			}
		}
	}
	return errs
}

// exitCodesProblems checks one rule's exit codes, at field.
func exitCodesProblems(field string, r PodFailurePolicyOnExitCodes, containers map[string]bool) []FieldError {
	var errs []FieldError
	if n := r.ContainerName; n != nil && !containers[*n] {
		errs = append(errs, FieldError{Field: field + ".containerName", Value: *n,
			Reason: "must be one of the container or initContainer names in the pod template"})
	}
	if r.Operator != exitCodesOperatorIn && r.Operator != exitCodesOperatorNotIn {
		errs = append(errs, FieldError{Field: field + ".operator", Reason: fmt.Sprintf(`Unsupported value: %q: supported values: "In", "NotIn"`, r.Operator)})
	}
	switch {
	case len(r.Values) == 0:
		errs = append(errs, FieldError{Field: field + ".values", Reason: "Invalid value: at least one value is required"})
	case len(r.Values) > maxPodFailureExitCodes:
		errs = append(errs, FieldError{Field: field + ".values", Reason: fmt.Sprintf("Too many: %d: must have at most %d items", len(r.Values), maxPodFailureExitCodes)})
	}
	for k, v := range r.Values {
		at := fmt.Sprintf("%s.values[%d]", field, k)
		switch {
		case r.Operator == exitCodesOperatorIn && v == 0:
			errs = append(errs, FieldError{Field: at, Value: "0", Reason: "must not be 0 for the In operator"})
		case k > 0 && v == r.Values[k-1]:
			errs = append(errs, FieldError{Field: at, Reason: "Duplicate value: " + strconv.Itoa(int(v))})
		case k > 0 && v < r.Values[k-1]:
			errs = append(errs, FieldError{Field: at, Value: strconv.Itoa(int(v)), Reason: "must be ordered"})
		}
	}
	return errs
}

// MatchPodFailurePolicy says what a Job's pod failure policy makes of
// its failed pod p: the action of the first rule that matches it
// (PodFailureCount when none does, or when the Job has no policy), and
// for FailJob the message the Job's failure condition carries, in
// Kubernetes' words.
func MatchPodFailurePolicy(j Job, p Pod) (action, message string) {
	if j.Spec.PodFailurePolicy == nil {
		return PodFailureCount, ""
	}
	for i, r := range j.Spec.PodFailurePolicy.Rules {
		if r.OnExitCodes != nil {
			if c, ok := exitCodeMatch(p, *r.OnExitCodes); ok {
				return r.Action, fmt.Sprintf("Container %s for pod %s/%s failed with exit code %d matching %s rule at index %d",
					c.Name, p.Namespace, p.Name, c.State.Terminated.ExitCode, r.Action, i)
			}
			continue
		}
		for _, want := range r.OnPodConditions {
			if c, ok := p.Condition(PodConditionType(want.Type)); ok && c.Status == want.Status {
				return r.Action, fmt.Sprintf("Pod %s/%s has condition %s matching %s rule at index %d", p.Namespace, p.Name, c.Type, r.Action, i)
			}
		}
	}
	return PodFailureCount, ""
}

// exitCodeMatch is the first container of p that terminated with a
// non-zero exit code that r matches (herd's pods have no init
// containers).
func exitCodeMatch(p Pod, r PodFailurePolicyOnExitCodes) (ContainerStatus, bool) {
	for _, c := range p.Status.ContainerStatuses {
		t := c.State.Terminated
		if t == nil || t.ExitCode == 0 || (r.ContainerName != nil && *r.ContainerName != c.Name) {
			continue
		}
		if slices.Contains(r.Values, t.ExitCode) == (r.Operator == exitCodesOperatorIn) {
			return c, true
		}
	}
	return ContainerStatus{}, false
}
