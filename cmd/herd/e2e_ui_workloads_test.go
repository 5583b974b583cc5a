package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestWebViewShowsStatefulSetsAndCronJobs: on herd serve --demo 2, a
// StatefulSet of three and a CronJob of every minute are created through
// the API; the Workloads page shows the StatefulSet with 3 desired, 3
// ready and 3 updated and its pods web-0, web-1, web-2 in order, and the
// CronJob with its schedule, not suspended, then its last schedule and
// the Job it made, which links to the Job's row. Scaled to 2 the
// StatefulSet shows 2 desired and web-0, web-1 without a reload;
// suspended, the CronJob says so; at a moment before the scale the page
// shows the three pods again, and playback moves it in place.
func TestWebViewShowsStatefulSetsAndCronJobs(t *testing.T) {
	t.Parallel()
	tab := newBrowser(t)
	// An error the page throws (a draw that fails would leave the page
	// as it was) fails the test, naming it.
	if err := chromedp.Listen(tab, func(ev any) {
		if e, ok := ev.(*cdpruntime.EventExceptionThrown); ok {
			t.Errorf("the page threw: %s %v", e.ExceptionDetails.Text, e.ExceptionDetails.Exception.Description)
		}
	}); err != nil {
		t.Fatal(err)
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	labels := map[string]string{"app": "web"}
	three := int32(3)
	sts := appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"},
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: &three, ServiceName: "web", Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1"}}},
			},
		},
	}
	mustCall(t, http.StatusCreated, http.MethodPost, srv.URL+"/apis/apps/v1/namespaces/default/statefulsets", sts, nil)
	cron := batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Name: "tick"},
		Spec: batchv1.CronJobSpec{
			Schedule: "* * * * *",
			JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyOnFailure,
				Containers:    []corev1.Container{{Name: "tick", Image: "busybox", Command: []string{"sh", "-c", "exit 0"}}},
			}}}},
		},
	}
	mustCall(t, http.StatusCreated, http.MethodPost, srv.URL+"/apis/batch/v1/namespaces/default/cronjobs", cron, nil)

	const stsRow = `document.querySelector('tr[data-workload="StatefulSet/default/web"]')`
	const cronRow = `document.querySelector('tr[data-workload="CronJob/default/tick"]')`
	pods := func(what string) []string {
		return read(t, tab, what, evaluate[[]string](`[...`+stsRow+`.querySelectorAll('ol.ordinals li')].map((li) => li.dataset.pod)`))
	}
	browse(t, tab, "the Workloads page", chromedp.Navigate(srv.URL+"/ui/#/workloads"), chromedp.WaitVisible(`section[data-kind="StatefulSet"]`))
	browse(t, tab, "web with three ready pods", waitFor(`(`+stsRow+`)?.querySelector('.sts-status')?.textContent === '3 desired, 3 ready, 3 updated' &&
		`+stsRow+`.querySelectorAll('ol.ordinals li').length === 3`))
	if got, want := pods("web's pods"), []string{"default/web-0", "default/web-1", "default/web-2"}; !slices.Equal(got, want) {
		t.Errorf("web's pods are shown as %q, want %q in order", got, want)
	}
	cells := read(t, tab, "tick's row", evaluate[[]string](`[...`+cronRow+`.cells].map((c) => c.textContent.trim())`))
	if len(cells) < 3 || cells[1] != "* * * * *" || cells[2] != "no" {
		t.Errorf("tick's row reads %q: want its schedule and not suspended", cells)
	}
	var before time.Time
	eventually(t, 30*time.Second, func() error {
		var st appsv1.StatefulSet
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/apps/v1/namespaces/default/statefulsets/web", nil, &st)
		if st.Status.ReadyReplicas != 3 {
			return fmt.Errorf("web has %d ready", st.Status.ReadyReplicas)
		}
		// A moment after web's three pods were ready, and before the
		// scale below.
		before = time.Now()
		return nil
	})
	screenshot(t, tab, "workloads")

	// Scaled to two: the page follows without a reload.
	browse(t, tab, "mark the page", script(`window.herdTestMark = 'kept'`))
	var scale autoscalingv1.Scale
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/apps/v1/namespaces/default/statefulsets/web/scale", nil, &scale)
	scale.Spec.Replicas = 2
	mustCall(t, http.StatusOK, http.MethodPut, srv.URL+"/apis/apps/v1/namespaces/default/statefulsets/web/scale", scale, nil)
	browse(t, tab, "web scaled to two", waitFor(`(`+stsRow+`)?.querySelector('.sts-status')?.textContent.startsWith('2 desired') &&
		`+stsRow+`.querySelectorAll('ol.ordinals li').length === 2`))
	if got, want := pods("web's pods after the scale"), []string{"default/web-0", "default/web-1"}; !slices.Equal(got, want) {
		t.Errorf("after the scale web's pods are shown as %q, want %q", got, want)
	}
	if mark := read(t, tab, "the page's mark", evaluate[string](`window.herdTestMark || ''`)); mark != "kept" {
		t.Error("the page was reloaded to show the scale")
	}

	// The CronJob's first Job, linked to the Job's row: the controller
	// runs on the wall clock, so it comes within the minute.
	browse(t, tab, "tick's Job listed", chromedp.Navigate(srv.URL+"/ui/#/workloads"), chromedp.WaitVisible(`section[data-kind="CronJob"]`))
	jobWait, cancel := context.WithTimeout(tab, 150*time.Second)
	defer cancel()
	if err := chromedp.Do(jobWait, waitFor(`!!(`+cronRow+`)?.querySelector('ul.cron-jobs li a.job-link')`)); err != nil {
		failBrowsing(t, tab, "tick's Job", err)
	}
	job := read(t, tab, "tick's Job", evaluate[string](`(`+cronRow+`).querySelector('ul.cron-jobs li').dataset.job`))
	if !strings.HasPrefix(job, "default/tick-") {
		t.Errorf("tick's Job is %q, want default/tick-<minute>", job)
	}
	if last := read(t, tab, "tick's last schedule", evaluate[string](`(`+cronRow+`).querySelector('.cron-last').textContent`)); strings.Contains(last, "never") || last == "" {
		t.Errorf("tick's last schedule reads %q once it made a Job", last)
	}
	screenshot(t, tab, "workloads-cronjob")
	browse(t, tab, "open tick's Job from its row", clickRedrawn(`tr[data-workload="CronJob/default/tick"] a.job-link`),
		waitFor(fmt.Sprintf(`!!document.querySelector('tr.shown[data-workload="Job/%s"]')`, job)))

	// Suspended: the page says so.
	var cj batchv1.CronJob
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/batch/v1/namespaces/default/cronjobs/tick", nil, &cj)
	suspend := true
	cj.Spec.Suspend = &suspend
	mustCall(t, http.StatusOK, http.MethodPut, srv.URL+"/apis/batch/v1/namespaces/default/cronjobs/tick", cj, nil)
	browse(t, tab, "tick suspended", waitFor(`(`+cronRow+`)?.querySelector('.cron-suspended')?.textContent === 'suspended'`))

	// As it was before the scale: three pods again, in the past; a move
	// to another moment of the past (as playback makes) is followed in
	// place.
	at := url.Values{"at": {before.UTC().Format(time.RFC3339Nano)}}
	browse(t, tab, "the Workloads page before the scale", chromedp.Navigate(srv.URL+"/ui/#/workloads?"+at.Encode()),
		chromedp.WaitVisible("#past-marker"),
		waitFor(`(`+stsRow+`)?.querySelector('.sts-status')?.textContent === '3 desired, 3 ready, 3 updated' &&
			`+stsRow+`.querySelectorAll('ol.ordinals li').length === 3`))
	if got, want := pods("web's pods before the scale"), []string{"default/web-0", "default/web-1", "default/web-2"}; !slices.Equal(got, want) {
		t.Errorf("before the scale web's pods are shown as %q, want %q", got, want)
	}
	if s := read(t, tab, "tick then", evaluate[string](`(`+cronRow+`).querySelector('.cron-suspended').textContent`)); s != "no" {
		t.Errorf("before it was suspended tick reads %q", s)
	}
	screenshot(t, tab, "workloads-past")
	browse(t, tab, "mark the past page", script(`window.herdTestMark = 'past'; `+stsRow+`.dataset.mark = 'kept'`))
	later := url.Values{"at": {time.Now().UTC().Format(time.RFC3339Nano)}}
	browse(t, tab, "move to a later moment in place", script(`history.replaceState(null, '', '#/workloads?`+later.Encode()+`'); window.dispatchEvent(new HashChangeEvent('hashchange'))`),
		waitFor(`(`+stsRow+`)?.querySelector('.sts-status')?.textContent.startsWith('2 desired')`))
	if kept := read(t, tab, "the row's mark", evaluate[string](stsRow+`.dataset.mark || ''`)); kept != "kept" {
		t.Error("a move to another moment of the past built the Workloads page again instead of following it in place")
	}
}
