// Package daemonset is the DaemonSet reconciler, in the manner of
// Kubernetes' DaemonSet controller (pkg/controller/daemon): for each
// DaemonSet it keeps one pod, made from its template, on every node that
// fits it, and none elsewhere. It creates each pod bound to its node
// (spec.nodeName), so herd's scheduler never places one; it deletes the
// pods of nodes that no longer fit, extra pods on a node, and failed or
// finished ones; it replaces the pods of an older template a few nodes
// at a time (RollingUpdate) or as they are deleted (OnDelete); and it
// records what it saw in the DaemonSet's status. It is also the garbage
// collector of the pods of a DaemonSet that is gone.
//
// A reconcile reads the DaemonSet, the pods of its namespace (those it
// owns, and the orphans it may adopt) and the nodes, once each; node
// events reach the DaemonSets from memory, never through a scan of the
// pods. It writes only through domain commands. It must not import the
// adapters or cmd.
package daemonset
