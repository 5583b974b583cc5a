// Package garbagecollector deletes the objects whose owners are all gone,
// as Kubernetes' garbage collector does: any kind herd stores with
// ownerReferences (pods, ConfigMaps, ReplicaSets, Jobs, DaemonSets,
// leases, PodDisruptionBudgets), whatever kind its owners are, an owner
// being matched by its uid. It follows the owner's propagationPolicy: an
// owner deleted in the background leaves its dependents to be deleted
// after it, one deleted in the foreground has them deleted while it
// waits, and one deleted with its dependents orphaned has its reference
// taken off them, whatever their kind. Cycles of owners need nothing
// special: once one member is deleted, the next one's owners are gone.
//
// An owner deleted in the foreground (a Deployment, ReplicaSet, Job or
// DaemonSet) is deleted by this collector, once no dependent that names
// it with blockOwnerDeletion or as its controller exists any more: what
// Kubernetes' collector does when it removes the foregroundDeletion
// finalizer. A dependent another owner keeps loses its reference to
// such an owner instead of holding it.
//
// The workload reconcilers keep collecting what they control (a
// ReplicaSet's pods); this one covers every other owner chain. It reads
// the views and acts only through the domain's commands; it imports
// domain, projections and reconcilers, never an adapter.
package garbagecollector
