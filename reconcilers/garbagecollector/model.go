package garbagecollector

import (
	"context"

	"herd/domain"
)

// role says what the objects of a kind on the object model are to the
// collector.
type role int

const (
	// owning kinds own dependents (a ReplicaSet its pods): they are
	// deleted in the foreground or with their dependents orphaned, and
	// their tombstone says which.
	owning role = 1 << iota
	// depending kinds may have owners of their own: the collector lists
	// them, deletes them and takes an owner's reference off them.
	depending
)

// modelKind is a kind on the object model as the collector sees it: its
// objects read from v, a view that keeps tombstones, and written through
// cmds; object is the object model's part of a state (itself for a kind
// that keeps nothing beside it). Every such kind is an owner; as says
// what more: an owning kind's owners are deleted in the foreground, and
// a depending kind's objects are dependents, of aggregate in the log.
func modelKind[T any, S domain.Spec[S, St], St any](name, group string, v objectView[T], object func(T) domain.Object[S, St],
	cmds domain.Executor[T, domain.ObjectCommand[S, St]], aggregate *domain.Aggregate, as role) *kind {
	owns := as&owning != 0
	k := &kind{
		name: name, group: group, namespaced: true,
		owner: lastOwner(v, func(s T) (bool, string, bool, bool) {
			o := object(s)
			return o.Exists(), o.UID, owns && o.DeletionRequestedAt != nil, owns && o.Orphan
		}),
	}
	if as&depending != 0 {
		dep := func(s T) dependent {
			o := object(s)
			return dependent{namespace: o.Namespace, name: o.Name, uid: o.UID, resourceVersion: o.ResourceVersion,
				owners: o.Owners, deleting: owns && o.DeletionRequestedAt != nil}
		}
		k.aggregate = aggregate
		k.list = listOf(v, dep)
		k.one = oneOf(v, func(s T) bool { return object(s).Exists() }, dep)
		k.del = func(ctx context.Context, d dependent, p domain.Propagation) error {
			if !owns {
				p = ""
			}
			_, err := cmds.Execute(ctx, d.key(), domain.Precondition[domain.ObjectCommand[S, St]]{ResourceVersion: d.resourceVersion,
				Command: domain.Delete[S, St]{Propagation: p}})
			return err
		}
		k.release = func(ctx context.Context, d dependent, uid string) error {
			_, err := cmds.Execute(ctx, d.key(), domain.Release[S, St]{UID: uid})
			return err
		}
	}
	if owns {
		k.deleting = deletingOf(v, func(s T) (deletingOwner, bool) {
			o := object(s)
			return deletingOwner{o.Namespace, o.Name, o.UID}, o.Exists() && o.DeletionRequestedAt != nil
		})
		k.finish = func(ctx context.Context, o deletingOwner) error {
			return ignoreNotFound(execute(ctx, cmds, o, domain.ObjectCommand[S, St](domain.FinishDeletion[S, St]{})))
		}
	}
	return k
}

// itself is the object of a kind whose state is the object model's alone.
func itself[S domain.Spec[S, St], St any](o domain.Object[S, St]) domain.Object[S, St] { return o }

// jobObject and daemonSetObject are the object model's part of a Job's
// and a DaemonSet's state, beside which each keeps something of its own.
func jobObject(j domain.Job) domain.Object[domain.JobSpec, domain.JobStatus] { return j.Object }

func daemonSetObject(ds domain.DaemonSet) domain.Object[domain.DaemonSetSpec, domain.DaemonSetStatus] {
	return ds.Object
}
