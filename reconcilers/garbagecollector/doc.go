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
// Like Kubernetes' collector, which keeps a graph of owners and
// dependents from its informers rather than listing objects again, it
// keeps the ConfigMaps and Leases that name owners in an index (index.go)
// filled from their own events: a namespace's pass, the resync's
// included, reads their owners and reads again only an object some owner
// of which no longer keeps it. A fleet's node leases, a hundred thousand
// in one namespace, are listed by the first pass after the collector
// starts running and every twentieth resync, not every 30 seconds.
//
// The workload reconcilers keep collecting what they control (a
// ReplicaSet's pods); this one covers every other owner chain. It reads
// the views and acts only through the domain's commands; it imports
// domain, projections and reconcilers, never an adapter.
package garbagecollector
