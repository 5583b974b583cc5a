// Package noexecute is the reconciler that evicts herd's pods from nodes
// with NoExecute taints they do not tolerate, as Kubernetes' taint manager
// does: at once when a taint is not tolerated, after the smallest
// tolerationSeconds of the tolerations that match (counted from when the
// taint was added or the pod bound, whichever is later), never when every
// matching toleration is unbounded. A taint removed before the time comes
// cancels the eviction. Evicting marks the pod DisruptionTarget
// (DeletionByTaintManager) and deletes it with its own grace period; the
// termination reconciler takes it from there.
//
// Pods herd only observes on a kubelet are the kubelet's business and are
// left alone. It reads the node and pod views and writes only through
// domain commands.
package noexecute
