package herdclient

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	corev1 "k8s.io/api/core/v1"

	"herd/adapters/conversions"
	"herd/domain"
)

// maxStatusAttempts bounds how often a status report is decided again
// after the pod changed under it (409 Conflict): each retry reads the pod
// afresh, so a few suffice unless something writes the pod constantly.
const maxStatusAttempts = 5

func podPath(namespace, name string) string {
	return "/api/v1/namespaces/" + url.PathEscape(namespace) + "/pods/" + url.PathEscape(name)
}

// Pod reads a pod (GET /api/v1/namespaces/NS/pods/NAME); an error
// matching domain.ErrNotFound when herd has none.
func (c *Client) Pod(ctx context.Context, namespace, name string) (domain.Pod, error) {
	var out corev1.Pod
	if err := c.do(ctx, "GET", podPath(namespace, name), nil, nil, &out); err != nil {
		return domain.Pod{}, err
	}
	return conversions.PodFromAPI(out)
}

// List returns herd's own pods bound to node (GET
// /api/v1/pods?fieldSelector=spec.nodeName=NODE); pods herd only
// observes on a kubelet are left out. node must be named: a node's agent
// may read its own pods only.
func (c *Client) List(ctx context.Context, node string) ([]domain.Pod, error) {
	pods, _, err := c.ListPods(ctx, node)
	return pods, err
}

// UpdateStatus reports a pod's status (PUT .../pods/NAME/status) under the
// resourceVersion it was decided on: decide sees the pod as herd has it
// (one that does not Exist when it is gone) and returns the status to
// write, or false to write nothing. When the pod changed in between, herd
// answers 409 and the pod is read and decided on again.
func (c *Client) UpdateStatus(ctx context.Context, namespace, name string, decide func(domain.Pod) (domain.PodStatus, bool)) error {
	for range maxStatusAttempts {
		p, err := c.Pod(ctx, namespace, name)
		if errors.Is(err, domain.ErrNotFound) {
			p, err = domain.Pod{Namespace: namespace, Name: name}, nil
		}
		if err != nil {
			return err
		}
		st, ok := decide(p)
		if !ok {
			return nil
		}
		if !p.Exists() {
			return fmt.Errorf("pod %s/%s: %w", namespace, name, domain.ErrNotFound)
		}
		err = c.do(ctx, "PUT", podPath(namespace, name)+"/status", nil, conversions.PodStatusToAPI(p, st), nil)
		if errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrNotFound) {
			continue // changed or gone meanwhile: decide again
		}
		return err
	}
	return fmt.Errorf("pod %s/%s: status: the pod kept changing over %d attempts: %w", namespace, name, maxStatusAttempts, domain.ErrConflict)
}

// RecordTermination records steps of the pod seen's way out, in order
// (POST /apis/herd.dev/v1/namespaces/NS/pods/NAME/termination). Each
// names the pod's UID, so that a pod recreated under the same name is
// never told of another's steps.
func (c *Client) RecordTermination(ctx context.Context, seen domain.Pod, steps ...domain.TerminationStep) error {
	path := "/apis/herd.dev/v1/namespaces/" + url.PathEscape(seen.Namespace) + "/pods/" + url.PathEscape(seen.Name) + "/termination"
	for _, s := range steps {
		body := conversions.TerminationStepRequest{Step: s.String(), UID: seen.UID}
		if err := c.do(ctx, "POST", path, nil, body, nil); err != nil {
			return err
		}
	}
	return nil
}
