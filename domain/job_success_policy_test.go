package domain

import (
	"errors"
	"strings"
	"testing"
)

// successSpec is an Indexed Job of completions indexes with the success
// policy rules.
func successSpec(completions int32, rules ...SuccessPolicyRule) JobSpec {
	s := sampleJobSpec()
	s.CompletionMode, s.Completions = JobIndexed, &completions
	s.SuccessPolicy = &JobSuccessPolicy{Rules: rules}
	return s
}

// TestSuccessPolicyRefusesWhatBatchV1Refuses: a success policy batch/v1
// refuses is refused naming the field; it is fixed once the Job exists.
func TestSuccessPolicyRefusesWhatBatchV1Refuses(t *testing.T) {
	nonIndexed := successSpec(5, SuccessPolicyRule{SucceededCount: new(int32(1))})
	nonIndexed.CompletionMode = JobNonIndexed
	tests := []struct {
		name, field, words string
		spec               JobSpec
	}{
		{"a Job without indexes", "spec.successPolicy", "requires indexed completion mode", nonIndexed},
		{"no rules", "spec.successPolicy.rules", "at least one rules must be specified", successSpec(5)},
		{"a rule of nothing", "spec.successPolicy.rules[0]", "at least one of succeededCount or succeededIndexes", successSpec(5, SuccessPolicyRule{})},
		{"indexes beyond the completions", "spec.successPolicy.rules[0].succeededIndexes", "error parsing succeededIndexes: index 5 is not below",
			successSpec(5, SuccessPolicyRule{SucceededIndexes: new("0,5")})},
		{"indexes out of order", "spec.successPolicy.rules[0].succeededIndexes", "increasing order",
			successSpec(5, SuccessPolicyRule{SucceededIndexes: new("3,1")})},
		{"a negative count", "spec.successPolicy.rules[0].succeededCount", "must be greater than or equal to 0",
			successSpec(5, SuccessPolicyRule{SucceededCount: new(int32(-1))})},
		{"a count above the completions", "spec.successPolicy.rules[0].succeededCount", "(the number of specified completions)",
			successSpec(5, SuccessPolicyRule{SucceededCount: new(int32(6))})},
		{"a count above the indexes named", "spec.successPolicy.rules[0].succeededCount", "(the number of indexes in the specified succeededIndexes field)",
			successSpec(5, SuccessPolicyRule{SucceededIndexes: new("0-1"), SucceededCount: new(int32(3))})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideJob(Job{}, CreateJob{Meta: ObjectMeta{Namespace: "default", Name: "ix", UID: "u"}, Spec: tt.spec}, at(1))
			if !errors.Is(err, ErrInvalid) || evs != nil || !strings.Contains(err.Error(), tt.field+": ") || !strings.Contains(err.Error(), tt.words) {
				t.Errorf("%v, %v; want a refusal naming %s with %q", evs, err, tt.field, tt.words)
			}
		})
	}
	j := createdIndexedJob(t, 5)
	changed := j.Spec
	changed.SuccessPolicy = &JobSuccessPolicy{Rules: []SuccessPolicyRule{{SucceededCount: new(int32(1))}}}
	if _, err := DecideJob(j, UpdateJob{Spec: changed}, at(2)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "spec.successPolicy") {
		t.Errorf("a success policy added later: %v, want it refused as immutable", err)
	}
}

// TestSuccessPolicyIsMetAsKubernetesMeetsIt: the first rule met names
// itself; a rule of indexes wants them all, or its count of them; a rule
// of a count alone counts every completed index.
func TestSuccessPolicyIsMetAsKubernetesMeetsIt(t *testing.T) {
	with := func(done string, rules ...SuccessPolicyRule) Job {
		j := Job{}
		j.Spec = successSpec(10, rules...)
		j.Status.CompletedIndexes = done
		return j
	}
	leader := SuccessPolicyRule{SucceededIndexes: new("0")}
	twoOfWorkers := SuccessPolicyRule{SucceededIndexes: new("1-4,8"), SucceededCount: new(int32(2))}
	half := SuccessPolicyRule{SucceededCount: new(int32(5))}
	tests := []struct {
		name string
		j    Job
		want string
	}{
		{"nothing done", with("", leader), ""},
		{"the leader done", with("0", leader, half), "Matched rules at index 0"},
		{"the leader not done", with("1-3", leader), ""},
		{"one worker of the two wanted", with("3,9", twoOfWorkers), ""},
		{"two workers across intervals", with("4-8", twoOfWorkers), "Matched rules at index 0"},
		{"a later rule met", with("1-2,5-7", leader, half), "Matched rules at index 1"},
		{"a count alone short", with("1-4", half), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := MetSuccessPolicy(tt.j)
			if got != tt.want || ok != (tt.want != "") {
				t.Errorf("got %q %v, want %q", got, ok, tt.want)
			}
		})
	}
}
