package httpapi

import (
	"maps"

	corev1 "k8s.io/api/core/v1"

	"herd/domain"
)

// agentRuntimeLabel keeps herd.dev/runtime on an agent's registration: the
// one herd.dev/ label a node sets itself, saying that its own agent runs
// its pods ("agent") and herd serve's runtime must leave them alone. Any
// other value is refused, naming the label.
func agentRuntimeLabel(in corev1.Node, reg *domain.Registration) error {
	v, ok := in.Labels[domain.LabelRuntime]
	if !ok {
		return nil
	}
	if v != domain.RuntimeAgent {
		return &domain.InvalidError{Kind: "Node", Name: in.Name, Fields: []domain.FieldError{{
			Field: "metadata.labels[" + domain.LabelRuntime + "]", Value: v, Reason: `supported values: "` + domain.RuntimeAgent + `"`,
		}}}
	}
	reg.Labels = maps.Clone(reg.Labels)
	if reg.Labels == nil {
		reg.Labels = map[string]string{}
	}
	reg.Labels[domain.LabelRuntime] = v
	return nil
}
