// Package replicaset is the ReplicaSet reconciler, in the manner of
// Kubernetes' ReplicaSet controller (pkg/controller/replicaset): for each
// ReplicaSet it keeps Spec.Replicas active pods that its selector matches
// and that it controls. It adopts orphans the selector matches before it
// creates new pods, releases the pods it controls that the selector no
// longer matches, creates what is missing from the template, deletes the
// surplus (the pods Kubernetes would delete first), and records what it
// saw in the ReplicaSet's status. It is also the garbage collector of the
// pods of a ReplicaSet that is gone, as Kubernetes' background cascading
// deletion is.
//
// It reads the ReplicaSets and the pods of one namespace at a time
// through the small interfaces it declares, and writes only through
// domain commands. It must not import the adapters or cmd.
package replicaset
