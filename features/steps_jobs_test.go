package features

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/cucumber/godog"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// jobsPath is where the default namespace's Jobs are.
const jobsPath = "/apis/batch/v1/namespaces/default/jobs"

func (w *world) registerJobSteps(sc *godog.ScenarioContext) {
	sc.Step(`^Job "([^"]+)" runs "([^"]+)" to (\d+) completions, (\d+) at a time$`, w.jobRunsToCompletions)
	sc.Step(`^Job "([^"]+)" runs "([^"]+)" with a backoff limit of (\d+)$`, w.jobRunsWithBackoffLimit)
	sc.Step(`^Job "([^"]+)" runs "([^"]+)" with a deadline of (\d+) seconds$`, w.jobRunsWithDeadline)
	sc.Step(`^Job "([^"]+)" runs "([^"]+)", deleted (\d+) seconds after it finishes$`, w.jobRunsWithTTL)
	sc.Step(`^Job "([^"]+)" has (\d+) pods? (Running|Failed|Succeeded)$`, w.jobHasPods)
	sc.Step(`^Job "([^"]+)" has (\d+) pods? Succeeded and (\d+) Running$`, w.jobHasSucceededAndRunning)
	sc.Step(`^Job "([^"]+)" has no pods$`, w.jobHasNoPods)
	sc.Step(`^Job "([^"]+)" is Complete with (\d+) pods? succeeded$`, w.jobIsComplete)
	sc.Step(`^Job "([^"]+)" is Failed because (\w+), with (\d+) pods? failed$`, w.jobIsFailed)
	sc.Step(`^Job "([^"]+)" is gone, and so are its pods$`, w.jobIsGone)
	sc.Step(`^the pods of Job "([^"]+)" carry the finalizer "([^"]+)"$`, w.jobPodsCarry)
	sc.Step(`^Job "([^"]+)" runs "([^"]+)" for each index up to (\d+), (\d+) at a time$`, w.jobRunsIndexed)
	sc.Step(`^the (Running|Succeeded) pods of Job "([^"]+)" are those of indexes ([\d, and]+)$`, w.jobPodsOfIndexes)
	sc.Step(`^Job "([^"]+)" has completed indexes "([^"]*)"$`, w.jobCompletedIndexes)
	sc.Step(`^Job "([^"]+)" runs "([^"]+)" with a backoff limit of (\d+), failing at once on exit code (\d+)$`, w.jobRunsFailingOnExitCode)
	sc.Step(`^Job "([^"]+)" runs "([^"]+)" with a backoff limit of (\d+), not counting disruptions$`, w.jobRunsIgnoringDisruptions)
	sc.Step(`^Job "([^"]+)" has counted no failures, and is neither Complete nor Failed$`, w.jobCountedNoFailures)
	sc.Step(`^Job "([^"]+)" runs "([^"]+)" for each index up to (\d+), (\d+) at a time, done once index (\d+) is$`, w.jobRunsUntilIndex)
	sc.Step(`^Job "([^"]+)" is Complete because SuccessPolicy, with (\d+) pods? succeeded$`, w.jobCompleteBySuccessPolicy)
	sc.Step(`^Job "([^"]+)" says its pod failed with exit code (\d+), matching its rule at index (\d+)$`, w.jobFailedByRule)
}

// jobRunsFailingOnExitCode creates a Job whose pod failure policy fails
// it at once when a pod exits with code.
func (w *world) jobRunsFailingOnExitCode(name, script string, limit, code int) error {
	return w.createJob(name, script, func(s *batchv1.JobSpec) {
		s.BackoffLimit = int32p(limit)
		s.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionFailJob,
			OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{int32(code)}}}}}
	})
}

// jobRunsIgnoringDisruptions creates a Job whose pod failure policy does
// not count a pod with the DisruptionTarget condition (evicted, drained).
func (w *world) jobRunsIgnoringDisruptions(name, script string, limit int) error {
	return w.createJob(name, script, func(s *batchv1.JobSpec) {
		s.BackoffLimit = int32p(limit)
		s.PodFailurePolicy = &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{Action: batchv1.PodFailurePolicyActionIgnore,
			OnPodConditions: []batchv1.PodFailurePolicyOnPodConditionsPattern{{Type: corev1.DisruptionTarget}}}}}
	})
}

func (w *world) jobCountedNoFailures(name string) error {
	j, err := w.job(name)
	if err != nil {
		return err
	}
	if conds := jobConditions(j); j.Status.Failed != 0 || len(conds) != 0 {
		return fmt.Errorf("Job %s: %d failed, conditions %v; want no failure counted and no outcome", name, j.Status.Failed, conds)
	}
	return nil
}

func (w *world) jobFailedByRule(name string, code, index int) error {
	j, err := w.job(name)
	if err != nil {
		return err
	}
	for _, c := range j.Status.Conditions {
		if c.Type == batchv1.JobFailed {
			want := fmt.Sprintf(" failed with exit code %d matching FailJob rule at index %d", code, index)
			if !strings.HasPrefix(c.Message, "Container "+name+" for pod default/"+name+"-") || !strings.HasSuffix(c.Message, want) {
				return fmt.Errorf("Job %s's Failed condition says %q, want the container, the pod and %q", name, c.Message, want)
			}
			return nil
		}
	}
	return fmt.Errorf("Job %s has no Failed condition: %+v", name, j.Status.Conditions)
}

// jobRunsIndexed creates an Indexed Job of completions pods, one for
// each index from 0, parallelism at a time.
func (w *world) jobRunsIndexed(name, script string, completions, parallelism int) error {
	return w.createJob(name, script, func(s *batchv1.JobSpec) {
		indexed := batchv1.IndexedCompletion
		s.Completions, s.Parallelism, s.CompletionMode = int32p(completions), int32p(parallelism), &indexed
	})
}

// jobPodsOfIndexes checks the indexes the Job's pods in phase name in
// their annotation, as kubectl get pods -o yaml shows them ("0, 1 and 2").
func (w *world) jobPodsOfIndexes(phase, name, indexes string) error {
	var list corev1.PodList
	if err := w.get("/api/v1/namespaces/default/pods", &list); err != nil {
		return err
	}
	var got []string
	for _, p := range list.Items {
		if c := metav1.GetControllerOf(&p); c == nil || c.Kind != "Job" || c.Name != name || string(p.Status.Phase) != phase || p.DeletionTimestamp != nil {
			continue
		}
		got = append(got, p.Annotations[batchv1.JobCompletionIndexAnnotation])
	}
	sort.Strings(got)
	want := strings.FieldsFunc(strings.ReplaceAll(indexes, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' })
	sort.Strings(want)
	if !slices.Equal(got, want) {
		return fmt.Errorf("the %s pods of Job %s are of indexes %v; want %v", phase, name, got, want)
	}
	return nil
}

func (w *world) jobCompletedIndexes(name, want string) error {
	var j batchv1.Job
	if err := w.get(jobsPath+"/"+url.PathEscape(name), &j); err != nil {
		return err
	}
	if j.Status.CompletedIndexes != want {
		return fmt.Errorf("Job %s has completed indexes %q; want %q", name, j.Status.CompletedIndexes, want)
	}
	return nil
}

// createJob creates a Job whose one container runs script through sh,
// as kubectl create job NAME --image=busybox -- sh -c SCRIPT does, with
// change applied to its spec.
func (w *world) createJob(name, script string, change func(*batchv1.JobSpec)) error {
	j := batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: name, Image: "busybox", Command: []string{"sh", "-c", script}}},
		}}},
	}
	change(&j.Spec)
	return w.writeJSON(http.MethodPost, jobsPath, "application/json", j)
}

func int32p(n int) *int32 { v := int32(n); return &v } //nolint:gosec // a scenario's small number

func (w *world) jobRunsToCompletions(name, script string, completions, parallelism int) error {
	return w.createJob(name, script, func(s *batchv1.JobSpec) {
		s.Completions, s.Parallelism = int32p(completions), int32p(parallelism)
	})
}

func (w *world) jobRunsWithBackoffLimit(name, script string, limit int) error {
	return w.createJob(name, script, func(s *batchv1.JobSpec) { s.BackoffLimit = int32p(limit) })
}

func (w *world) jobRunsWithDeadline(name, script string, secs int) error {
	return w.createJob(name, script, func(s *batchv1.JobSpec) { d := int64(secs); s.ActiveDeadlineSeconds = &d })
}

func (w *world) jobRunsWithTTL(name, script string, secs int) error {
	return w.createJob(name, script, func(s *batchv1.JobSpec) { s.TTLSecondsAfterFinished = int32p(secs) })
}

// jobPods counts the pods the Job controls by phase; those on their way
// out count as "Terminating".
func (w *world) jobPods(name string) (map[string]int, []string, error) {
	var list corev1.PodList
	if err := w.get("/api/v1/namespaces/default/pods", &list); err != nil {
		return nil, nil, err
	}
	byPhase := map[string]int{}
	var seen []string
	for _, p := range list.Items {
		if c := metav1.GetControllerOf(&p); c == nil || c.Kind != "Job" || c.Name != name {
			continue
		}
		phase := string(p.Status.Phase)
		if p.DeletionTimestamp != nil {
			phase = "Terminating"
		}
		byPhase[phase]++
		seen = append(seen, p.Name+" "+phase)
	}
	sort.Strings(seen)
	return byPhase, seen, nil
}

// jobPodsCarry checks that every pod the Job controls, and at least one,
// carries finalizer, as kubectl get pod -o yaml shows it.
func (w *world) jobPodsCarry(name, finalizer string) error {
	var list corev1.PodList
	if err := w.get("/api/v1/namespaces/default/pods", &list); err != nil {
		return err
	}
	n := 0
	for _, p := range list.Items {
		if c := metav1.GetControllerOf(&p); c == nil || c.Kind != "Job" || c.Name != name {
			continue
		}
		n++
		if !slices.Contains(p.Finalizers, finalizer) {
			return fmt.Errorf("pod %s of Job %s has finalizers %v; want %s among them", p.Name, name, p.Finalizers, finalizer)
		}
	}
	if n == 0 {
		return fmt.Errorf("Job %s has no pods", name)
	}
	return nil
}

func (w *world) jobHasPods(name string, n int, phase string) error {
	byPhase, seen, err := w.jobPods(name)
	if err != nil {
		return err
	}
	if byPhase[phase] != n || len(seen) != n {
		return fmt.Errorf("Job %s has pods %v; want %d %s", name, seen, n, phase)
	}
	return nil
}

func (w *world) jobHasSucceededAndRunning(name string, succeeded, running int) error {
	byPhase, seen, err := w.jobPods(name)
	if err != nil {
		return err
	}
	if byPhase["Succeeded"] != succeeded || byPhase["Running"] != running || len(seen) != succeeded+running {
		return fmt.Errorf("Job %s has pods %v; want %d Succeeded and %d Running", name, seen, succeeded, running)
	}
	return nil
}

func (w *world) jobHasNoPods(name string) error {
	_, seen, err := w.jobPods(name)
	if err != nil {
		return err
	}
	if len(seen) > 0 {
		return fmt.Errorf("Job %s still has pods %v", name, seen)
	}
	return nil
}

// job reads the Job.
func (w *world) job(name string) (batchv1.Job, error) {
	var j batchv1.Job
	err := w.get(jobsPath+"/"+url.PathEscape(name), &j)
	return j, err
}

// jobConditions are the Job's True conditions, "Type/Reason", in order.
func jobConditions(j batchv1.Job) []string {
	var out []string
	for _, c := range j.Status.Conditions {
		if c.Status == corev1.ConditionTrue {
			out = append(out, string(c.Type)+"/"+c.Reason)
		}
	}
	return out
}

func (w *world) jobIsComplete(name string, succeeded int) error {
	j, err := w.job(name)
	if err != nil {
		return err
	}
	conds := fmt.Sprint(jobConditions(j))
	if conds != "[SuccessCriteriaMet/CompletionsReached Complete/CompletionsReached]" || int(j.Status.Succeeded) != succeeded || j.Status.CompletionTime == nil {
		return fmt.Errorf("Job %s: conditions %s, %d succeeded, completed %v; want it Complete with %d", name, conds, j.Status.Succeeded, j.Status.CompletionTime, succeeded)
	}
	return nil
}

func (w *world) jobIsFailed(name, reason string, failed int) error {
	j, err := w.job(name)
	if err != nil {
		return err
	}
	conds := fmt.Sprint(jobConditions(j))
	want := fmt.Sprintf("[FailureTarget/%s Failed/%s]", reason, reason)
	if conds != want || int(j.Status.Failed) != failed || j.Status.Active != 0 {
		return fmt.Errorf("Job %s: conditions %s, %d failed, %d active; want %s with %d failed", name, conds, j.Status.Failed, j.Status.Active, want, failed)
	}
	return nil
}

func (w *world) jobIsGone(name string) error {
	if _, err := w.job(name); err == nil {
		return fmt.Errorf("Job %s is still there", name)
	}
	return w.jobHasNoPods(name)
}

// jobRunsUntilIndex creates an Indexed Job whose success policy is met
// once index has succeeded (a leader whose end is the work's).
func (w *world) jobRunsUntilIndex(name, script string, completions, parallelism, index int) error {
	return w.createJob(name, script, func(s *batchv1.JobSpec) {
		indexed := batchv1.IndexedCompletion
		s.Completions, s.Parallelism, s.CompletionMode = int32p(completions), int32p(parallelism), &indexed
		s.SuccessPolicy = &batchv1.SuccessPolicy{Rules: []batchv1.SuccessPolicyRule{{SucceededIndexes: new(fmt.Sprint(index))}}}
	})
}

func (w *world) jobCompleteBySuccessPolicy(name string, succeeded int) error {
	j, err := w.job(name)
	if err != nil {
		return err
	}
	conds := fmt.Sprint(jobConditions(j))
	if conds != "[SuccessCriteriaMet/SuccessPolicy Complete/SuccessPolicy]" || int(j.Status.Succeeded) != succeeded || j.Status.CompletionTime == nil {
		return fmt.Errorf("Job %s: conditions %s, %d succeeded, completed %v; want it Complete by its success policy with %d", name, conds, j.Status.Succeeded, j.Status.CompletionTime, succeeded)
	}
	return nil
}
