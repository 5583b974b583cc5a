package httpapi

import (
	"errors"
	"fmt"
	"net/http"

	"k8s.io/apimachinery/pkg/fields"

	"herd/domain"
)

// authorizeNodePods is Kubernetes' Node authorizer for pods, for herd's
// agents: a node lists the pods bound to it (fieldSelector
// spec.nodeName=NAME), reads each of them, reports their status and
// records the steps of their termination — and nothing of any other
// node's pods.
func (g mainGate) authorizeNodePods(r *http.Request, ri requestInfo, u User, node string) error {
	switch {
	case ri.Group == "" && ri.Name == "" && ri.Verb == "list":
		if selectsExactly(r, "spec.nodeName", node) {
			return nil
		}
		return denied(ri, u, fmt.Sprintf("node %q may only list the pods bound to it (fieldSelector=spec.nodeName=%s)", node, node))
	case ri.Name != "" && nodePodVerb(ri):
		p, err := g.s.PodView.Get(r.Context(), ri.Namespace, ri.Name)
		switch {
		case errors.Is(err, domain.ErrNotFound):
		case err != nil:
			return err
		case p.Spec.NodeName == node:
			return nil
		}
		return denied(ri, u, fmt.Sprintf("no relationship found between node %q and this pod", node))
	}
	return denied(ri, u, fmt.Sprintf("node %q may only read the pods bound to it, report their status and record their termination", node))
}

// nodePodVerb reports whether ri is something a node does to a pod of its
// own: read it, write its status, record a termination step.
// selectsExactly says whether the request's fieldSelector requires field
// to be value, whatever else it selects.
func selectsExactly(r *http.Request, field, value string) bool {
	sel, err := fields.ParseSelector(r.URL.Query().Get("fieldSelector"))
	if err != nil {
		return false
	}
	v, ok := sel.RequiresExactMatch(field)
	return ok && v == value
}

func nodePodVerb(ri requestInfo) bool {
	switch ri.Group {
	case "":
		return ri.Verb == "get" && (ri.Subresource == "" || ri.Subresource == "status") ||
			(ri.Verb == "update" || ri.Verb == "patch") && ri.Subresource == "status"
	case herdGroup:
		return ri.Verb == "create" && ri.Subresource == "termination"
	}
	return false
}
