package features

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// cronJobsPath is where the default namespace's CronJobs are.
const cronJobsPath = "/apis/batch/v1/namespaces/default/cronjobs"

func (w *world) registerCronJobSteps(sc *godog.ScenarioContext) {
	sc.Step(`^CronJob "([^"]+)" runs "([^"]+)" every (\d+) minutes$`, func(name, script string, n int) error {
		return w.createCronJob(name, script, n, batchv1.AllowConcurrent)
	})
	sc.Step(`^CronJob "([^"]+)" runs "([^"]+)" every (\d+) minutes, one at a time$`, func(name, script string, n int) error {
		return w.createCronJob(name, script, n, batchv1.ForbidConcurrent)
	})
	sc.Step(`^CronJob "([^"]+)" is suspended$`, w.suspendCronJob)
	sc.Step(`^CronJob "([^"]+)" has made no Jobs$`, func(name string) error { return w.cronJobMade(name, "") })
	sc.Step(`^CronJob "([^"]+)" has made Jobs for (.+)$`, w.cronJobMade)
	sc.Step(`^CronJob "([^"]+)" last ran at (\d\d:\d\d)$`, w.cronJobLastRan)
	sc.Step(`^CronJob "([^"]+)" has (\d+) active Jobs?$`, w.cronJobActive)
}

// createCronJob creates a CronJob whose Jobs run script through sh, as
// kubectl create cronjob NAME --image=busybox --schedule=... -- sh -c
// SCRIPT does, every n minutes, under policy.
func (w *world) createCronJob(name, script string, n int, policy batchv1.ConcurrencyPolicy) error {
	c := batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: batchv1.CronJobSpec{Schedule: fmt.Sprintf("*/%d * * * *", n), ConcurrencyPolicy: policy,
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyOnFailure,
				Containers:    []corev1.Container{{Name: name, Image: "busybox", Command: []string{"sh", "-c", script}}},
			}}}}},
	}
	return w.writeJSON(http.MethodPost, cronJobsPath, "application/json", c)
}

func (w *world) suspendCronJob(name string) error {
	return w.writeJSON(http.MethodPatch, cronJobsPath+"/"+url.PathEscape(name), "application/merge-patch+json",
		map[string]any{"spec": map[string]any{"suspend": true}})
}

// clockTimes reads "09:05, 09:10 and 09:15" as times of the scenario's
// day, by herd's clock.
func (w *world) clockTimes(list string) ([]time.Time, error) {
	var out []time.Time
	day := w.clock.Now().UTC().Truncate(24 * time.Hour)
	for _, s := range regexp.MustCompile(`\d\d:\d\d`).FindAllString(list, -1) {
		h, _ := strconv.Atoi(s[:2])
		m, _ := strconv.Atoi(s[3:])
		out = append(out, day.Add(time.Duration(h)*time.Hour+time.Duration(m)*time.Minute))
	}
	if len(out) == 0 && list != "" {
		return nil, fmt.Errorf("no times hh:mm in %q", list)
	}
	return out, nil
}

// cronJobMade checks that the Jobs the CronJob owns are exactly those of
// the runs at the times listed, named as Kubernetes names them.
func (w *world) cronJobMade(name, times string) error {
	ts, err := w.clockTimes(times)
	if err != nil {
		return err
	}
	var want []string
	for _, t := range ts {
		want = append(want, fmt.Sprintf("%s-%d", name, t.Unix()/60))
	}
	var list batchv1.JobList
	if err := w.get(jobsPath, &list); err != nil {
		return err
	}
	var got []string
	for _, j := range list.Items {
		if ref := metav1.GetControllerOf(&j); ref != nil && ref.Kind == "CronJob" && ref.Name == name {
			got = append(got, j.Name)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		return fmt.Errorf("CronJob %s's Jobs: %v, want %v", name, got, want)
	}
	return nil
}

func (w *world) cronJob(name string) (batchv1.CronJob, error) {
	var c batchv1.CronJob
	err := w.get(cronJobsPath+"/"+url.PathEscape(name), &c)
	return c, err
}

func (w *world) cronJobLastRan(name, at string) error {
	c, err := w.cronJob(name)
	if err != nil {
		return err
	}
	ts, err := w.clockTimes(at)
	if err != nil {
		return err
	}
	if c.Status.LastScheduleTime == nil || !c.Status.LastScheduleTime.Time.Equal(ts[0]) {
		return fmt.Errorf("CronJob %s last scheduled %v, want %s", name, c.Status.LastScheduleTime, ts[0])
	}
	return nil
}

func (w *world) cronJobActive(name string, n int) error {
	c, err := w.cronJob(name)
	if err != nil {
		return err
	}
	if len(c.Status.Active) != n {
		var names []string
		for _, a := range c.Status.Active {
			names = append(names, a.Name)
		}
		return fmt.Errorf("CronJob %s has %d active Jobs (%s), want %d", name, len(names), strings.Join(names, ", "), n)
	}
	return nil
}
