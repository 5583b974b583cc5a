package domain

import (
	"slices"
	"strings"
	"testing"
)

// Every workload kind refuses a template its selector does not select, a
// template label or annotation that is not valid and a pod spec without
// containers, in the same words: the checks are the model's, not each
// kind's copy of them.
func TestWorkloadKindsRefuseABadTemplateInTheSameWords(t *testing.T) {
	broken := func(sel *LabelSelector, tmpl *PodTemplate) {
		*sel = LabelSelector{MatchLabels: map[string]string{"app": "web"}}
		tmpl.Labels = map[string]string{"app": "db", "bad key!": "x"}
		tmpl.Annotations = map[string]string{"-not/valid": "x"}
		tmpl.Spec.Containers = nil
	}
	rs := sampleRSSpec()
	broken(&rs.Selector, &rs.Template)
	d := sampleDeploymentSpec()
	broken(&d.Selector, &d.Template)
	ds := sampleDSSpec()
	broken(&ds.Selector, &ds.Template)
	sts := sampleStatefulSetSpec()
	DefaultStatefulSetSpec(&sts)
	broken(&sts.Selector, &sts.Template)
	job := sampleJobSpec()
	job.Selector = LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	broken(&job.Selector, &job.Template)
	kinds := map[string][]FieldError{
		"ReplicaSet": replicaSetSpecProblems(rs), "Deployment": deploymentSpecProblems(d), "DaemonSet": daemonSetSpecProblems(ds),
		"StatefulSet": statefulSetSpecProblems(sts), "Job": jobSpecProblems(job),
	}
	want := []string{
		"spec.template.metadata.labels: Invalid value: `selector` does not match template `labels`",
		"spec.template.metadata.labels",
		"spec.template.metadata.annotations",
		"spec.template.spec.containers: Required value",
	}
	for kind, errs := range kinds {
		var got []string
		for _, e := range errs {
			if strings.HasPrefix(e.Field, "spec.template") {
				got = append(got, e.Field+": "+e.Reason)
			}
		}
		for _, w := range want {
			if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, w) }) {
				t.Errorf("%s: no refusal %q among %q", kind, w, got)
			}
		}
	}
}

// Every workload kind refuses a negative count in kube-apiserver's words,
// naming the field and the value.
func TestWorkloadKindsRefuseNegativeCounts(t *testing.T) {
	rs := sampleRSSpec()
	rs.Replicas, rs.MinReadySeconds = -1, -2
	d := sampleDeploymentSpec()
	d.RevisionHistoryLimit = -3
	ds := sampleDSSpec()
	ds.MinReadySeconds, ds.RevisionHistoryLimit = -4, -5
	sts := sampleStatefulSetSpec()
	DefaultStatefulSetSpec(&sts)
	sts.Replicas, sts.MinReadySeconds = -6, -7
	*sts.RevisionHistoryLimit, *sts.UpdateStrategy.Partition = -8, -9
	job := sampleJobSpec()
	ttl, deadline := int32(-11), int64(-12)
	job.Parallelism, job.BackoffLimit, job.TTLSecondsAfterFinished, job.ActiveDeadlineSeconds = -1, -10, &ttl, &deadline
	cj := sampleCronJobSpec()
	cj.SuccessfulJobsHistoryLimit, cj.FailedJobsHistoryLimit = -13, -14
	for _, c := range []struct {
		name string
		errs []FieldError
		want []string
	}{
		{"ReplicaSet", replicaSetSpecProblems(rs), []string{`spec.replicas: Invalid value: "-1"`, `spec.minReadySeconds: Invalid value: "-2"`}},
		{"Deployment", deploymentSpecProblems(d), []string{`spec.revisionHistoryLimit: Invalid value: "-3"`}},
		{"DaemonSet", daemonSetSpecProblems(ds), []string{`spec.minReadySeconds: Invalid value: "-4"`, `spec.revisionHistoryLimit: Invalid value: "-5"`}},
		{"StatefulSet", statefulSetSpecProblems(sts), []string{`spec.replicas: Invalid value: "-6"`, `spec.minReadySeconds: Invalid value: "-7"`,
			`spec.revisionHistoryLimit: Invalid value: "-8"`, `spec.updateStrategy.rollingUpdate.partition: Invalid value: "-9"`}},
		{"Job", jobSpecProblems(job), []string{`spec.parallelism: Invalid value: "-1"`, `spec.backoffLimit: Invalid value: "-10"`,
			`spec.activeDeadlineSeconds: Invalid value: "-12"`, `spec.ttlSecondsAfterFinished: Invalid value: "-11"`}},
		{"CronJob", cronJobProblems(ObjectMeta{Name: "c"}, cj), []string{`spec.successfulJobsHistoryLimit: Invalid value: "-13"`,
			`spec.failedJobsHistoryLimit: Invalid value: "-14"`}},
	} {
		msg := invalid(c.name, "x", c.errs).Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w+": must be greater than or equal to 0") {
				t.Errorf("%s: %q does not say %q", c.name, msg, w)
			}
		}
	}
}
