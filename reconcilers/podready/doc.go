// Package podready is the reconciler that turns the Ready condition of
// herd's pods to False while their node is not Ready, as Kubernetes' node
// lifecycle controller does (MarkPodsNotReady): when a node's Ready leaves
// True — the node reported it, its agent stopped, or herd stopped hearing
// from it — every pod of herd's bound to it that reports Ready True is
// marked not ready, and so is one reported Ready later while the node
// still is not. A
// workload then counts those pods out of its ready replicas and a
// disruption budget out of its healthy pods, rather than counting pods
// nobody hears from as serving.
//
// The mark changes only the condition's status; the node's runtime
// reports the pod Ready again once the node is Ready and the pod still
// runs (the zones reconciler, here or in a node's agent). Pods herd only
// observes on a kubelet are left to what their kubelet says. It reads
// the node and pod views and writes only through domain commands.
package podready
