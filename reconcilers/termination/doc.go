// Package termination is the reconciler that takes herd's own pods out of
// the fleet once their deletion was requested: it asks the node's runtime
// to shut the pod down, halts it when the grace period runs out first,
// removes what the runtime held for it and finalizes it, recording each
// step on the pod. Pods of nodes whose own agent runs them are left to
// that agent; the reconciler finalizes them once the agent has recorded
// them deprovisioned.
//
// It is also herd's pod garbage collector, as Kubernetes' is: a pod being
// deleted that was never scheduled, whose node is gone or cannot run
// herd's pods, or whose node has been unreachable for the GC timeout past
// the pod's deadline, is finalized anyway (reason DeletionByPodGC), and a
// pod bound to a node that no longer exists is deleted at once. Nothing
// stays Terminating for ever — except a pod that still carries finalizers:
// as in Kubernetes, finalizers hold a pod until whoever set them removes
// them, and garbage collection does not override them.
//
// It reads the pod and node views, calls runtimes through the small
// interface it declares, and writes only through domain commands.
//
// NodeReconciler is the same runtime steps on the node's side: `herd
// agent` runs it for its own node against its local runtime, reading its
// pods and recording each step through herd's HTTP API, and leaves
// finalization and garbage collection to herd serve.
package termination
