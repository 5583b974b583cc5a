package httpapi

import (
	"fmt"
	"net/http"

	coordinationv1 "k8s.io/api/coordination/v1"

	"herd/domain"
)

// authorizeNodeLease is Kubernetes' Node authorizer and NodeRestriction
// for leases: a node reads, creates, updates and patches its own lease,
// kube-node-lease/NAME, as the kubelet renews it — and no other lease,
// nor lists or deletes any.
func (g mainGate) authorizeNodeLease(r *http.Request, ri requestInfo, u User, node string) error {
	if ri.Namespace != domain.NodeLeaseNamespace {
		return denied(ri, u, fmt.Sprintf("node %q may only hold its own lease in %s", node, domain.NodeLeaseNamespace))
	}
	switch ri.Verb {
	case "create":
		if ri.Name != "" {
			break
		}
		obj, err := peekObject(r, &coordinationv1.Lease{})
		if err != nil {
			return err
		}
		if name := obj.GetName(); name == node {
			return nil
		}
		return denied(ri, u, fmt.Sprintf("node %q cannot create the lease %q", node, obj.GetName()))
	case "get", "update", "patch":
		if ri.Name == node && ri.Subresource == "" {
			return nil
		}
		return denied(ri, u, fmt.Sprintf("node %q may only read and renew its own lease %q", node, node))
	}
	return denied(ri, u, fmt.Sprintf("node %q may only read, create and renew its own lease", node))
}
