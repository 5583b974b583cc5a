// Package scheduler is the reconciler that places herd's pending pods on
// nodes, by the rules of the Kubernetes scheduler's default plugins: a
// node must be Ready, not cordoned (unless the pod tolerates
// node.kubernetes.io/unschedulable), carry no NoSchedule or NoExecute taint
// the pod does not tolerate, match its nodeSelector and have room for its
// requests; among the nodes that fit, the least allocated wins, with
// untolerated PreferNoSchedule taints counting against a node. A pod that
// fits nowhere stays Pending, with PodScheduled False and a message that
// counts the reasons in the scheduler's own words.
//
// One key, "pending", is a pass over every pending pod: the work queue
// coalesces the events that call for one. The pass keeps the nodes' usage
// in memory, so each pod sees the pods placed before it, and binds in
// batches of one transaction each.
//
// It reads the node and pod views and acts only through domain commands
// (BindPod, MarkPodUnschedulable); it must not import adapters or cmd.
package scheduler
