package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/conversions"
	"herd/domain"
)

// podChange is the command of a PUT or PATCH of a pod or its status:
// change makes it of the pod the client wants (in) and the pod as it
// stands inside the unit of work, conditional on rv when not 0.
func podChange(change func(p domain.Pod, in corev1.Pod) (domain.PodCommand, error)) func(in *corev1.Pod, rv int64) (domain.PodCommand, error) {
	return func(in *corev1.Pod, rv int64) (domain.PodCommand, error) {
		return domain.RequireExists[domain.PodCommand]{Command: ifVersion[domain.PodCommand](rv, domain.PodFrom(func(p domain.Pod) (domain.PodCommand, error) {
			return change(p, *in)
		}))}, nil
	}
}

// metadataChange is the command that turns p into in, refusing any change
// to the spec and metadata kube-apiserver would refuse.
func metadataChange(p domain.Pod, in corev1.Pod) (domain.PodCommand, error) {
	if in.Name == "" {
		in.Name = p.Name
	}
	if err := conversions.ValidatePodUpdate(&in); err != nil {
		return nil, err
	}
	// The spec asked for, with the defaults a new pod's takes (as
	// kube-apiserver defaults an update's before it compares), against
	// the pod's.
	asked := conversions.PodSpecFromAPI(in.Spec)
	asked.TerminationGracePeriodSeconds = domain.DefaultTerminationGracePeriodSeconds
	if g := in.Spec.TerminationGracePeriodSeconds; g != nil {
		asked.TerminationGracePeriodSeconds = *g
	}
	was, _ := json.Marshal(conversions.PodToAPI(p).Spec)
	now, _ := json.Marshal(conversions.PodSpecToAPI(asked))
	if string(was) != string(now) {
		return nil, &domain.InvalidError{Kind: "Pod", Name: p.Name, Fields: []domain.FieldError{{
			Field: "spec", Reason: "Forbidden: pod updates may not change fields other than metadata.labels, metadata.annotations and metadata.finalizers",
		}}}
	}
	return domain.SetPodMetadata{Labels: in.Labels, Annotations: conversions.WithoutHerdKeys(in.Annotations), Finalizers: in.Finalizers}, nil
}

// statusChange is the status report in carries, once it passes
// kube-apiserver's checks of a pod's status.
func statusChange(p domain.Pod, in corev1.Pod) (domain.PodCommand, error) {
	if in.Name == "" {
		in.Name = p.Name
	}
	if err := conversions.ValidatePodStatus(&in); err != nil {
		return nil, err
	}
	return domain.UpdatePodStatus{Status: conversions.PodStatusFromAPI(in.Status)}, nil
}

// evictionCommand is the policy/v1 Eviction subresource, which kubectl
// drain uses: the pod is marked as a disruption target and deleted
// gracefully with the grace period of the eviction's deleteOptions, once
// its disruption budget, if one covers it, grants the disruption
// (evictionHandler).
func evictionCommand(r *http.Request) (domain.Eviction, error) {
	ev, err := decodeEviction(r)
	if err != nil {
		return domain.Eviction{}, err
	}
	if name := r.PathValue("name"); ev.Name != "" && ev.Name != name {
		return domain.Eviction{}, badRequest("the name of the eviction (%s) does not match the pod (%s)", ev.Name, name)
	}
	var grace *int64
	if ev.DeleteOptions != nil {
		grace = ev.DeleteOptions.GracePeriodSeconds
	}
	return domain.Eviction{Command: domain.PodSequence{
		domain.TargetPodDisruption{Reason: domain.ReasonEvictionByEvictionAPI, Message: "Eviction API: evicting"},
		domain.DeletePod{GracePeriodSeconds: grace},
	}}, nil
}

// evictionHandler serves pods/NAME/eviction: the eviction runs through
// s.Evictions, the pod's disruption budget and the pod in one unit of
// work, and a budget's refusal is kube-apiserver's: 429 TooManyRequests
// with the DisruptionBudget cause, which kubectl drain waits out and
// retries. It answers 201 with a Success Status, as kube-apiserver does.
func (s *Server) evictionHandler(pods *kind) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key := domain.Key{Namespace: r.PathValue("namespace"), Name: r.PathValue("name")}
		if err := s.evict(r, key); err != nil {
			s.kindError(w, pods, evictionRefusal(err), key.Name)
			return
		}
		done := successStatus(pods.resource, key.Name)
		s.writeObject(w, http.StatusCreated, &done)
	}
}

// evict decides the eviction r asks for on the pod at key, and carries
// it out unless r asks for a dry run.
func (s *Server) evict(r *http.Request, key domain.Key) error {
	dry, err := dryRunOf(r)
	if err != nil {
		return err
	}
	cmd, err := evictionCommand(r)
	if err != nil {
		return err
	}
	if !dry {
		_, err = s.Evictions.Execute(r.Context(), key, cmd)
		return err
	}
	d, ok := s.Evictions.(dryRunner[domain.Pod, domain.Eviction])
	if !ok {
		return refuseDryRun(r)
	}
	_, err = d.DryRun(r.Context(), key, cmd)
	return err
}

// evictionRefusal is a budget's refusal of an eviction in kube-apiserver's
// words (pkg/registry/core/pod/storage/eviction.go): 429 with the
// DisruptionBudget cause while the budget allows no disruption, 403 when
// its status forbids any, and a 500 Failure for a pod more than one budget
// covers. Any other error is left as it is.
func evictionRefusal(err error) error {
	var refused *domain.EvictionRefusedError
	switch {
	case errors.As(err, &refused) && refused.Forbidden:
		return apierrors.NewForbidden(policyv1.Resource("poddisruptionbudget"), refused.Budget, errors.New(refused.Cause))
	case errors.As(err, &refused):
		tooMany := apierrors.NewTooManyRequests(domain.EvictionRefusedMessage, refused.RetryAfterSeconds)
		tooMany.ErrStatus.Details.Causes = append(tooMany.ErrStatus.Details.Causes,
			metav1.StatusCause{Type: policyv1.DisruptionBudgetCause, Message: refused.Cause})
		return tooMany
	case errors.Is(err, domain.ErrMultipleBudgets):
		return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}}
	}
	return err
}

// bindingCommand is the binding subresource: a scheduler's decision, to
// a node herd knows.
func (s *Server) bindingCommand(r *http.Request) (domain.PodCommand, error) {
	var b corev1.Binding
	if err := decodeObject(r, &b); err != nil {
		return nil, err
	}
	if b.Target.Kind != "" && b.Target.Kind != "Node" {
		return nil, badRequest("a binding's target must be a Node, not %q", b.Target.Kind)
	}
	if _, err := s.NodeView.Get(r.Context(), b.Target.Name); err != nil {
		if errors.Is(err, domain.ErrNotFound) {
			return nil, apierrors.NewNotFound(corev1.Resource("nodes"), b.Target.Name)
		}
		return nil, err
	}
	return domain.BindPod{NodeName: b.Target.Name}, nil
}

// decodeEviction reads an Eviction of policy/v1 or, as kubectl drain sends
// it to a server it believes older, policy/v1beta1: the two have the same
// fields.
func decodeEviction(r *http.Request) (policyv1.Eviction, error) {
	var ev policyv1.Eviction
	obj, err := decodeBody(r, &ev)
	if err != nil {
		return ev, err
	}
	switch old := obj.(type) {
	case *policyv1.Eviction:
	case *policyv1beta1.Eviction:
		ev.ObjectMeta, ev.DeleteOptions = old.ObjectMeta, old.DeleteOptions
	default:
		return ev, badRequest("the body is a %s, not an Eviction", describeKind(obj))
	}
	return ev, nil
}
