package domain

import (
	"fmt"
	"strconv"
)

// JobReasonSuccessPolicy is the reason of the conditions of an Indexed
// Job that a rule of its success policy declared succeeded.
const JobReasonSuccessPolicy = "SuccessPolicy"

// maxSuccessPolicyRules is the most rules a success policy may have, as
// batch/v1 allows.
const maxSuccessPolicyRules = 20

// JobSuccessPolicy declares an Indexed Job succeeded before all its
// indexes have: when any of its rules is met, its pods still running are
// stopped and the Job is Complete.
type JobSuccessPolicy struct {
	Rules []SuccessPolicyRule `json:"rules"`
}

// SuccessPolicyRule is met when the indexes SucceededIndexes names
// (every index when unset) have succeeded — all of them, or
// SucceededCount of them when that is set.
type SuccessPolicyRule struct {
	SucceededIndexes *string `json:"succeededIndexes,omitempty"`
	SucceededCount   *int32  `json:"succeededCount,omitempty"`
}

// successPolicyProblems checks a Job's success policy as batch/v1's
// validation does: an Indexed Job's, 1 to 20 rules, each naming indexes
// below its completions in increasing order, or a count, or both, the
// count no more than its completions or the indexes named.
func successPolicyProblems(s JobSpec) []FieldError {
	p := s.SuccessPolicy
	if p == nil {
		return nil
	}
	if s.CompletionMode != JobIndexed || s.Completions == nil {
		return []FieldError{{Field: "spec.successPolicy", Reason: "Invalid value: requires indexed completion mode"}}
	}
	var errs []FieldError
	switch n := len(p.Rules); {
	case n == 0:
		errs = append(errs, FieldError{Field: "spec.successPolicy.rules", Reason: "Required value: at least one rules must be specified when the successPolicy is specified"})
	case n > maxSuccessPolicyRules:
		errs = append(errs, FieldError{Field: "spec.successPolicy.rules", Reason: fmt.Sprintf("Too many: %d: must have at most %d items", n, maxSuccessPolicyRules)})
	}
	completions := *s.Completions
	for i, r := range p.Rules {
		at := fmt.Sprintf("spec.successPolicy.rules[%d]", i)
		total := completions
		if r.SucceededIndexes != nil {
			if why := completedIndexesProblem(*r.SucceededIndexes, completions); why != "" {
				errs = append(errs, FieldError{Field: at + ".succeededIndexes", Value: *r.SucceededIndexes, Reason: "error parsing succeededIndexes: " + why})
			} else {
				named, _ := ParseIndexes(*r.SucceededIndexes)
				total = named.Len()
			}
		}
		if c := r.SucceededCount; c != nil {
			count := strconv.Itoa(int(*c))
			switch {
			case *c < 0:
				errs = append(errs, FieldError{Field: at + ".succeededCount", Value: count, Reason: "must be greater than or equal to 0"})
			case *c > completions:
				errs = append(errs, FieldError{Field: at + ".succeededCount", Value: count,
					Reason: fmt.Sprintf("must be less than or equal to %d (the number of specified completions)", completions)})
			case r.SucceededIndexes != nil && *c > total:
				errs = append(errs, FieldError{Field: at + ".succeededCount", Value: count,
					Reason: fmt.Sprintf("must be less than or equal to %d (the number of indexes in the specified succeededIndexes field)", total)})
			}
		}
		if r.SucceededCount == nil && r.SucceededIndexes == nil {
			errs = append(errs, FieldError{Field: at, Reason: "Required value: at least one of succeededCount or succeededIndexes must be specified"})
		}
	}
	return errs
}

// MetSuccessPolicy says whether a rule of the Indexed Job's success
// policy is met by the indexes it has completed, and if so the message
// of its success, in Kubernetes' words ("Matched rules at index 0").
func MetSuccessPolicy(j Job) (string, bool) {
	if j.Spec.SuccessPolicy == nil || j.Status.CompletedIndexes == "" {
		return "", false
	}
	done, err := ParseIndexes(j.Status.CompletedIndexes)
	if err != nil {
		return "", false
	}
	for i, r := range j.Spec.SuccessPolicy.Rules {
		met := false
		if r.SucceededIndexes != nil {
			named, err := ParseIndexes(*r.SucceededIndexes)
			if err != nil || len(named) == 0 {
				continue
			}
			want := named.Len()
			if r.SucceededCount != nil {
				want = *r.SucceededCount
			}
			met = overlap(named, done) >= want
		} else if r.SucceededCount != nil {
			met = done.Len() >= *r.SucceededCount
		}
		if met {
			return fmt.Sprintf("Matched rules at index %d", i), true
		}
	}
	return "", false
}

// overlap is how many indexes x and y both hold.
func overlap(x, y Indexes) int32 {
	var n int32
	for a, b := 0, 0; a < len(x) && b < len(y); {
		lo, hi := max(x[a][0], y[b][0]), min(x[a][1], y[b][1])
		if lo <= hi {
			n += hi - lo + 1
		}
		if x[a][1] < y[b][1] {
			a++
		} else {
			b++
		}
	}
	return n
}
