package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// demoRunningPods counts the active jobs of the demo node name, as
// `herd agent` counts its own for the heartbeat's activeJobs
// (domain.Pod.ActiveJob): the pods Running on it, and the pods of batch
// Jobs Pending there. JOBS shows what the node runs (herd's mock runtime
// runs the demo agents' pods), so a drained node shows 0 and a busy one
// its pods.
func demoRunningPods(ctx context.Context, c *http.Client, base, name string) (int, error) {
	var list corev1.PodList
	q := url.Values{"fieldSelector": {"spec.nodeName=" + name}}
	if err := demoList(ctx, c, base+"/api/v1/pods?"+q.Encode(), &list); err != nil {
		return 0, fmt.Errorf("list the pods of %s: %w", name, err)
	}
	n := 0
	for _, p := range list.Items {
		ctrl := metav1.GetControllerOf(&p)
		jobPending := ctrl != nil && ctrl.Kind == "Job" && p.Status.Phase == corev1.PodPending && p.DeletionTimestamp == nil
		if p.Status.Phase == corev1.PodRunning || jobPending {
			n++
		}
	}
	return n, nil
}

// demoList GETs a list from herd's API as JSON into list.
func demoList(ctx context.Context, c *http.Client, url string, list any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "herd-demo")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return errors.New(resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(list)
}
