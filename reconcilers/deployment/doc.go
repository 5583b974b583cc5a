// Package deployment is the Deployment reconciler: it rolls each
// Deployment out through one ReplicaSet per revision of its pod
// template, as Kubernetes' deployment controller does — a new template
// makes a new ReplicaSet (named by the template's hash, carrying the next
// revision), which grows while the old ones shrink within maxSurge and
// maxUnavailable (RollingUpdate), or only once the old ones have no pods
// left (Recreate); a template that was run before brings its ReplicaSet
// back with a new revision (kubectl rollout undo); old ReplicaSets beyond
// revisionHistoryLimit are deleted; a paused Deployment is scaled but not
// rolled out. It records the Deployment's status (replicas, updated,
// ready, available, the Available and Progressing conditions, the
// progress deadline) and deletes the ReplicaSets of a Deployment that is
// gone. It reads the ReplicaSets of one namespace per reconcile, never a
// pod, and acts only through ReplicaSet and Deployment commands.
package deployment
