package herdclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/conversions"
	"herd/domain"
)

// ErrExpired is matched by herd's 410 Expired: the resourceVersion a
// watch resumed from is older than the history herd keeps (or was
// compacted away); list again for a current one.
var ErrExpired = errors.New("resourceVersion expired")

// The types of a PodEvent, as Kubernetes names them.
const (
	PodAdded    = "ADDED"
	PodModified = "MODIFIED"
	PodDeleted  = "DELETED"
)

// PodEvent is one change to a pod a watch saw.
type PodEvent struct {
	// Type is ADDED, MODIFIED or DELETED.
	Type string
	// Pod is the pod after the change (before it, for DELETED).
	Pod domain.Pod
}

// ListPods is List with the list's resourceVersion, from which a watch
// sees every change after it.
func (c *Client) ListPods(ctx context.Context, node string) ([]domain.Pod, string, error) {
	if node == "" {
		return nil, "", errors.New("herdclient: list pods: name the node")
	}
	var out corev1.PodList
	q := url.Values{"fieldSelector": {"spec.nodeName=" + node}}
	if err := c.do(ctx, "GET", "/api/v1/pods", q, nil, &out); err != nil {
		return nil, "", err
	}
	pods := make([]domain.Pod, 0, len(out.Items))
	for _, kp := range out.Items {
		p, err := conversions.PodFromAPI(kp)
		if err != nil {
			return nil, "", err
		}
		if !p.Observed() {
			pods = append(pods, p)
		}
	}
	return pods, out.ResourceVersion, nil
}

// WatchPods follows herd's own pods bound to node from resourceVersion rv
// (GET /api/v1/pods?watch=true, with bookmarks), calling fn for each
// change, until herd ends the watch (after timeout), ctx ends or the
// stream breaks. It returns the newest resourceVersion seen — of an event
// or a bookmark, or rv when none came — from which the next watch
// resumes, and why it ended: nil when herd closed it, an error matching
// ErrExpired when rv is older than herd's history (list again), else the
// failure.
func (c *Client) WatchPods(ctx context.Context, node, rv string, timeout time.Duration, fn func(PodEvent)) (string, error) {
	if node == "" {
		return rv, errors.New("herdclient: watch pods: name the node")
	}
	q := url.Values{
		"watch": {"true"}, "allowWatchBookmarks": {"true"}, "resourceVersion": {rv},
		"fieldSelector":  {"spec.nodeName=" + node},
		"timeoutSeconds": {strconv.Itoa(max(1, int(timeout/time.Second)))},
	}
	const path = "/api/v1/pods"
	req, err := c.newRequest(ctx, http.MethodGet, path, q, nil)
	if err != nil {
		return rv, err
	}
	resp, err := c.stream.Do(req)
	if err != nil {
		return rv, fmt.Errorf("cannot reach herd at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		return rv, refusal(http.MethodGet, path, resp, data)
	}
	dec := json.NewDecoder(resp.Body)
	for {
		var frame struct {
			Type   string          `json:"type"`
			Object json.RawMessage `json:"object"`
		}
		if err := dec.Decode(&frame); err != nil {
			if errors.Is(err, io.EOF) {
				return rv, nil
			}
			return rv, fmt.Errorf("watch pods of %s: %w", node, err)
		}
		switch frame.Type {
		case PodAdded, PodModified, PodDeleted:
			var kp corev1.Pod
			if err := json.Unmarshal(frame.Object, &kp); err != nil {
				return rv, fmt.Errorf("watch pods of %s: decode a pod: %w", node, err)
			}
			p, err := conversions.PodFromAPI(kp)
			if err != nil {
				return rv, fmt.Errorf("watch pods of %s: %w", node, err)
			}
			rv = kp.ResourceVersion
			if !p.Observed() {
				fn(PodEvent{Type: frame.Type, Pod: p})
			}
		case "BOOKMARK":
			var m metav1.PartialObjectMetadata
			if err := json.Unmarshal(frame.Object, &m); err == nil && m.ResourceVersion != "" {
				rv = m.ResourceVersion
			}
		case "ERROR":
			var st metav1.Status
			_ = json.Unmarshal(frame.Object, &st)
			return rv, &StatusError{Method: http.MethodGet, Path: path + "?watch=true", Code: int(st.Code), Reason: string(st.Reason), Message: st.Message}
		}
	}
}
