package domain

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// policySpec is the sample Job's spec, its pods never restarting, with
// the pod failure policy rules.
func policySpec(rules ...PodFailurePolicyRule) JobSpec {
	s := sampleJobSpec()
	s.Template.Spec.RestartPolicy = RestartNever
	s.PodFailurePolicy = &JobPodFailurePolicy{Rules: rules}
	return s
}

func exitCodes(op string, values ...int32) *PodFailurePolicyOnExitCodes {
	return &PodFailurePolicyOnExitCodes{Operator: op, Values: values}
}

// TestPodFailurePolicyRefusesWhatBatchV1Refuses: a policy batch/v1's
// validation refuses is refused with the field named; a valid one is
// created with the pattern's status defaulted to True, and is fixed once
// the Job exists.
func TestPodFailurePolicyRefusesWhatBatchV1Refuses(t *testing.T) {
	ok := PodFailurePolicyRule{Action: PodFailureFailJob, OnExitCodes: exitCodes("In", 42)}
	tooMany := make([]PodFailurePolicyRule, 21)
	for i := range tooMany {
		tooMany[i] = ok
	}
	create := func(s JobSpec) JobCommand {
		return CreateJob{Meta: ObjectMeta{Namespace: "default", Name: "pi", UID: "job-uid"}, Spec: s}
	}
	restarting := policySpec(ok)
	restarting.Template.Spec.RestartPolicy = RestartOnFailure
	tests := []struct {
		name, field, words string
		spec               JobSpec
	}{
		{"pods that restart", "spec.template.spec.restartPolicy", `only "Never" is supported`, restarting},
		{"too many rules", "spec.podFailurePolicy.rules", "must have at most 20 items", policySpec(tooMany...)},
		{"an action herd does not run", "spec.podFailurePolicy.rules[0].action", "Unsupported value",
			policySpec(PodFailurePolicyRule{Action: "FailIndex", OnExitCodes: exitCodes("In", 1)})},
		{"neither exit codes nor conditions", "spec.podFailurePolicy.rules[0]", "specifying one of OnExitCodes and OnPodConditions is required",
			policySpec(PodFailurePolicyRule{Action: PodFailureCount})},
		{"both exit codes and conditions", "spec.podFailurePolicy.rules[0]", "specifying both",
			policySpec(PodFailurePolicyRule{Action: PodFailureCount, OnExitCodes: exitCodes("In", 1), OnPodConditions: []PodFailurePolicyOnCondition{{Type: "DisruptionTarget"}}})},
		{"an unknown operator", "spec.podFailurePolicy.rules[0].onExitCodes.operator", "Unsupported value",
			policySpec(PodFailurePolicyRule{Action: PodFailureCount, OnExitCodes: exitCodes("Above", 1)})},
		{"no exit codes", "spec.podFailurePolicy.rules[0].onExitCodes.values", "at least one value is required",
			policySpec(PodFailurePolicyRule{Action: PodFailureCount, OnExitCodes: exitCodes("In")})},
		{"0 among In", "spec.podFailurePolicy.rules[0].onExitCodes.values[0]", "must not be 0 for the In operator",
			policySpec(PodFailurePolicyRule{Action: PodFailureCount, OnExitCodes: exitCodes("In", 0, 1)})},
		{"exit codes out of order", "spec.podFailurePolicy.rules[0].onExitCodes.values[1]", "must be ordered",
			policySpec(PodFailurePolicyRule{Action: PodFailureCount, OnExitCodes: exitCodes("NotIn", 3, 1)})},
		{"an exit code twice", "spec.podFailurePolicy.rules[0].onExitCodes.values[1]", "Duplicate value",
			policySpec(PodFailurePolicyRule{Action: PodFailureCount, OnExitCodes: exitCodes("NotIn", 3, 3)})},
		{"a container the template does not have", "spec.podFailurePolicy.rules[0].onExitCodes.containerName", "must be one of the container",
			policySpec(PodFailurePolicyRule{Action: PodFailureCount, OnExitCodes: &PodFailurePolicyOnExitCodes{ContainerName: new("other"), Operator: "In", Values: []int32{1}}})},
		{"a condition without a type", "spec.podFailurePolicy.rules[0].onPodConditions[0].type", "Required value",
			policySpec(PodFailurePolicyRule{Action: PodFailureIgnore, OnPodConditions: []PodFailurePolicyOnCondition{{Status: ConditionTrue}}})},
		{"a condition status that is none", "spec.podFailurePolicy.rules[0].onPodConditions[0].status", "Unsupported value",
			policySpec(PodFailurePolicyRule{Action: PodFailureIgnore, OnPodConditions: []PodFailurePolicyOnCondition{{Type: "DisruptionTarget", Status: "Maybe"}}})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideJob(Job{}, create(tt.spec), at(1))
			var inv *InvalidError
			if !errors.As(err, &inv) || evs != nil {
				t.Fatalf("%v, %v; want a refusal", evs, err)
			}
			if !strings.Contains(err.Error(), tt.field+": ") || !strings.Contains(err.Error(), tt.words) {
				t.Errorf("refusal %q names no %s with %q", err, tt.field, tt.words)
			}
		})
	}

	evs, err := DecideJob(Job{}, create(policySpec(ok, PodFailurePolicyRule{Action: PodFailureIgnore,
		OnPodConditions: []PodFailurePolicyOnCondition{{Type: "DisruptionTarget"}}})), at(1))
	if err != nil {
		t.Fatal(err)
	}
	j := Job{}
	for _, e := range evs {
		j = EvolveJob(j, e)
	}
	if got := j.Spec.PodFailurePolicy.Rules[1].OnPodConditions[0].Status; got != ConditionTrue {
		t.Errorf("a pattern without a status: %q, want True by default", got)
	}
	changed := j.Spec
	changed.PodFailurePolicy = &JobPodFailurePolicy{Rules: []PodFailurePolicyRule{ok}}
	if _, err := DecideJob(j, UpdateJob{Spec: changed}, at(2)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "spec.podFailurePolicy") {
		t.Errorf("a changed policy: %v, want it refused as immutable", err)
	}
}

// TestPodFailurePolicyMatchesAsKubernetesDoes: the first rule that
// matches a failed pod decides; exit code 0 and running containers never
// match; with no match, or no policy, a failure counts.
func TestPodFailurePolicyMatchesAsKubernetesDoes(t *testing.T) {
	failed := func(codes map[string]int32, conds ...PodConditionType) Pod {
		p := Pod{Namespace: "default", Name: "pi-x"}
		p.Status.Phase = PodFailed
		for _, name := range []string{"main", "sidecar"} {
			if code, ok := codes[name]; ok {
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, ContainerStatus{Name: name,
					State: ContainerState{Terminated: &ContainerTerminated{ExitCode: code}}})
			} else {
				p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, ContainerStatus{Name: name,
					State: ContainerState{Running: &ContainerRunning{}}})
			}
		}
		for _, c := range conds {
			p.Status.Conditions = append(p.Status.Conditions, PodCondition{Type: c, Status: ConditionTrue})
		}
		return p
	}
	j := Job{}
	j.Spec = policySpec(
		PodFailurePolicyRule{Action: PodFailureIgnore, OnPodConditions: []PodFailurePolicyOnCondition{{Type: "DisruptionTarget", Status: ConditionTrue}}},
		PodFailurePolicyRule{Action: PodFailureFailJob, OnExitCodes: &PodFailurePolicyOnExitCodes{ContainerName: new("main"), Operator: "In", Values: []int32{42}}},
		PodFailurePolicyRule{Action: PodFailureCount, OnExitCodes: exitCodes("NotIn", 1, 2)},
	)
	tests := []struct {
		name          string
		pod           Pod
		action, words string
	}{
		{"an evicted pod", failed(map[string]int32{"main": 42}, PodConditionDisruptionTarget), PodFailureIgnore,
			"Pod default/pi-x has condition DisruptionTarget matching Ignore rule at index 0"},
		{"the named container's code", failed(map[string]int32{"main": 42}), PodFailureFailJob,
			"Container main for pod default/pi-x failed with exit code 42 matching FailJob rule at index 1"},
		{"another container's code", failed(map[string]int32{"sidecar": 42}), PodFailureCount,
			"Container sidecar for pod default/pi-x failed with exit code 42 matching Count rule at index 2"},
		{"a code no rule names", failed(map[string]int32{"main": 1}), PodFailureCount, ""},
		{"exit code 0 never matches NotIn", failed(map[string]int32{"main": 0}), PodFailureCount, ""},
		{"running containers never match", failed(nil), PodFailureCount, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			action, msg := MatchPodFailurePolicy(j, tt.pod)
			if action != tt.action || msg != tt.words {
				t.Errorf("got %s %q, want %s %q", action, msg, tt.action, tt.words)
			}
		})
	}
	if action, msg := MatchPodFailurePolicy(Job{}, failed(map[string]int32{"main": 42})); action != PodFailureCount || msg != "" {
		t.Errorf("no policy: %s %q, want Count", action, msg)
	}
}

// TestCountingUnderAPodFailurePolicy: an ignored failure is counted
// once, not as a failure and not toward the backoff; a FailJob match
// sets the Job's FailureTarget with the count, unless its outcome was
// known already.
func TestCountingUnderAPodFailurePolicy(t *testing.T) {
	j := createdJob(t)
	evs, err := DecideJob(j, CountJobPods{Failed: []string{"a"}, Ignored: []string{"b", "b"}}, at(5))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Event{JobPodsCounted{Failed: []string{"a"}, Ignored: []string{"b"}, At: at(5)}}, evs); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	j = EvolveJob(j, evs[0])
	if j.Status.Failed != 1 || j.Tracking.FailuresSinceSuccess != 1 || len(j.Tracking.Counted) != 2 {
		t.Errorf("after an ignored and a counted failure: failed %d, since success %d, counted %v", j.Status.Failed, j.Tracking.FailuresSinceSuccess, j.Tracking.Counted)
	}
	if evs, err := DecideJob(j, CountJobPods{Ignored: []string{"b"}}, at(6)); err != nil || evs != nil {
		t.Errorf("an ignored pod again: %v, %v; want nothing", evs, err)
	}

	msg := "Container pi for pod default/pi-c failed with exit code 42 matching FailJob rule at index 0"
	evs, err = DecideJob(j, CountJobPods{Failed: []string{"c"}, FailJob: msg}, at(7))
	if err != nil || len(evs) != 1 {
		t.Fatalf("%v, %v", evs, err)
	}
	j = EvolveJob(j, evs[0])
	c, ok := j.Status.Condition(JobFailureTarget)
	if !ok || c.Status != ConditionTrue || c.Reason != JobReasonPodFailurePolicy || c.Message != msg || !c.LastTransitionTime.Equal(at(7)) || j.Status.Failed != 2 {
		t.Errorf("after a FailJob match: %+v, failed %d", j.Status.Conditions, j.Status.Failed)
	}
	evs, err = DecideJob(j, CountJobPods{Failed: []string{"d"}, FailJob: "another"}, at(8))
	if err != nil || len(evs) != 1 || evs[0].(JobPodsCounted).FailJob != "" {
		t.Errorf("a second FailJob match once the outcome is known: %v, %v; want the pod counted, the outcome kept", evs, err)
	}
}
