package httpapi

import (
	corev1 "k8s.io/api/core/v1"

	"herd/domain"
)

// checkRuntimeLabel refuses an agent's registration whose herd.dev/runtime
// label says anything but "agent" (its own agent runs its pods), naming
// the label: any other value would leave the node's pods to herd serve's
// runtime without a word.
func checkRuntimeLabel(in corev1.Node) error {
	v, ok := in.Labels[domain.LabelRuntime]
	if !ok || v == domain.RuntimeAgent {
		return nil
	}
	return &domain.InvalidError{Kind: "Node", Name: in.Name, Fields: []domain.FieldError{{
		Field: "metadata.labels[" + domain.LabelRuntime + "]", Value: v, Reason: `supported values: "` + domain.RuntimeAgent + `"`,
	}}}
}
