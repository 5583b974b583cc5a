package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"herd/adapters/conversions"
	"herd/domain"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// terminationCommand is POST
// /apis/herd.dev/v1/namespaces/NS/pods/NAME/termination: a node's agent
// records a step of a pod's way out that its runtime took. Recording a
// step again changes nothing; a pod that is not being deleted, or that is
// another pod than the UID names, is a conflict. The answer is the pod.
func terminationCommand(r *http.Request) (domain.PodCommand, error) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	req, err := decodeTerminationStep(r, name)
	if err != nil {
		return nil, err
	}
	step, err := domain.ParseTerminationStep(req.Step)
	if err != nil {
		return nil, &domain.InvalidError{Kind: "Pod", Name: name, Fields: []domain.FieldError{{
			Field: "step", Value: req.Step, Reason: `supported values: "ShutdownRequested", "Halted", "Stopped", "Deprovisioned"`,
		}}}
	}
	return domain.RequireExists[domain.PodCommand]{Command: domain.PodFrom(func(p domain.Pod) (domain.PodCommand, error) {
		if req.UID != "" && req.UID != p.UID {
			return nil, apierrors.NewConflict(corev1.Resource("pods"), name,
				fmt.Errorf("pod %s/%s is another pod now (UID %s, not %s)", ns, name, p.UID, req.UID))
		}
		return domain.RecordTermination{Step: step}, nil
	})}, nil
}

// decodeTerminationStep reads the body strictly: an unknown field is a
// typo, a missing step is named.
func decodeTerminationStep(r *http.Request, name string) (conversions.TerminationStepRequest, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return conversions.TerminationStepRequest{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var req conversions.TerminationStepRequest
	if err := dec.Decode(&req); err != nil {
		return req, badRequest("the termination body is not valid: %v", err)
	}
	if err := cleanText(&req); err != nil {
		return req, err
	}
	if req.Step == "" {
		return req, &domain.InvalidError{Kind: "Pod", Name: name, Fields: []domain.FieldError{{Field: "step", Reason: "Required value"}}}
	}
	return req, nil
}
