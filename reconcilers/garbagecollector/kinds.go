package garbagecollector

import (
	"context"
	"errors"

	"herd/domain"
	"herd/projections"
)

// Readers are the views the collector reads, each through the one
// method it needs.
type Readers struct {
	Pods interface {
		List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
		Get(ctx context.Context, namespace, name string) (domain.Pod, error)
	}
	ConfigMaps interface {
		List(ctx context.Context, namespace string) ([]domain.ConfigMap, int64, error)
		Get(ctx context.Context, namespace, name string) (domain.ConfigMap, error)
	}
	Leases interface {
		List(ctx context.Context, namespace string) ([]domain.Lease, int64, error)
		Get(ctx context.Context, namespace, name string) (domain.Lease, error)
	}
	ReplicaSets          objectView[domain.ReplicaSet]
	Deployments          objectView[domain.Deployment]
	Jobs                 objectView[domain.Job]
	CronJobs             objectView[domain.CronJob]
	StatefulSets         objectView[domain.StatefulSet]
	DaemonSets           objectView[domain.DaemonSet]
	PodDisruptionBudgets objectView[domain.PodDisruptionBudget]
	ControllerRevisions  objectView[domain.ControllerRevision]
	Nodes                interface {
		Get(ctx context.Context, name string) (domain.Node, error)
	}
	Namespaces namespaceReader
}

// namespaceReader reads namespaces: as owners, and every one to sweep.
type namespaceReader interface {
	Get(ctx context.Context, name string) (domain.Namespace, error)
	List(ctx context.Context) ([]domain.Namespace, int64, error)
}

// lister lists a namespace's objects of a kind.
type lister[S any] interface {
	List(ctx context.Context, namespace string) ([]S, int64, error)
}

// objectView is a kind's view that keeps tombstones (projections.JSONView).
type objectView[S any] interface {
	lister[S]
	Last(ctx context.Context, namespace, name string) (S, error)
}

// liveView is a kind's view that keeps no tombstones: a ConfigMap's, a
// Lease's.
type liveView[S any] interface {
	lister[S]
	Get(ctx context.Context, namespace, name string) (S, error)
}

// Repository is what the collector writes through.
type Repository interface {
	PodCommands() domain.Executor[domain.Pod, domain.PodCommand]
	ConfigMapCommands() domain.Executor[domain.ConfigMap, domain.ConfigMapCommand]
	LeaseCommands() domain.Executor[domain.Lease, domain.LeaseCommand]
	ReplicaSetCommands() domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand]
	DeploymentCommands() domain.Executor[domain.Deployment, domain.DeploymentCommand]
	JobCommands() domain.Executor[domain.Job, domain.JobCommand]
	CronJobCommands() domain.Executor[domain.CronJob, domain.CronJobCommand]
	StatefulSetCommands() domain.Executor[domain.StatefulSet, domain.StatefulSetCommand]
	DaemonSetCommands() domain.Executor[domain.DaemonSet, domain.DaemonSetCommand]
	PodDisruptionBudgetCommands() domain.Executor[domain.PodDisruptionBudget, domain.PodDisruptionBudgetCommand]
	ControllerRevisionCommands() domain.Executor[domain.ControllerRevision, domain.ControllerRevisionCommand]
}

// kinds is every kind herd stores, as owner or dependent.
func kinds(rd Readers, repo Repository) []*kind {
	return []*kind{
		podKind(rd, repo), configMapKind(rd, repo), leaseKind(rd, repo),
		modelKind("ReplicaSet", "apps", rd.ReplicaSets, itself, repo.ReplicaSetCommands(), domain.ReplicaSetAggregate, owning|depending),
		modelKind("Deployment", "apps", rd.Deployments, itself, repo.DeploymentCommands(), domain.DeploymentAggregate, owning|depending),
		modelKind("Job", "batch", rd.Jobs, jobObject, repo.JobCommands(), domain.JobAggregate, owning|depending),
		// A CronJob owns its Jobs, a StatefulSet its pods: deleted after
		// it, before it (in the foreground) or orphaned, as the deletion
		// asked.
		modelKind("CronJob", "batch", rd.CronJobs, itself, repo.CronJobCommands(), domain.CronJobAggregate, owning|depending),
		modelKind("StatefulSet", "apps", rd.StatefulSets, itself, repo.StatefulSetCommands(), domain.StatefulSetAggregate, owning|depending),
		modelKind(domain.KindDaemonSet, "apps", rd.DaemonSets, daemonSetObject, repo.DaemonSetCommands(), domain.DaemonSetAggregate, owning|depending),
		modelKind("PodDisruptionBudget", "policy", rd.PodDisruptionBudgets, itself, repo.PodDisruptionBudgetCommands(), domain.PodDisruptionBudgetAggregate, depending),
		// A ControllerRevision is a dependent, its StatefulSet's or its
		// DaemonSet's, and owns nothing.
		modelKind("ControllerRevision", "apps", rd.ControllerRevisions, itself, repo.ControllerRevisionCommands(), domain.ControllerRevisionAggregate, depending),
		{
			name: "Node", owner: func(ctx context.Context, _, name, uid string) (owner, error) {
				n, err := rd.Nodes.Get(ctx, name)
				return ownerOf(err == nil, n.UID, uid, false, false), ignoreNotFound(err)
			},
		},
		{
			name: "Namespace", owner: func(ctx context.Context, _, name, uid string) (owner, error) {
				ns, err := rd.Namespaces.Get(ctx, name)
				return ownerOf(err == nil, ns.UID, uid, false, false), ignoreNotFound(err)
			},
		},
	}
}

// key is the dependent's key for its kind's commands.
func (d dependent) key() domain.Key { return domain.Key{Namespace: d.namespace, Name: d.name} }

// lastOwner reads an owner from a view that keeps tombstones, which say
// whether it was deleted with its dependents orphaned.
func lastOwner[S any](v objectView[S], state func(S) (exists bool, uid string, deleting, orphan bool)) lookup {
	return func(ctx context.Context, namespace, name, uid string) (owner, error) {
		s, err := v.Last(ctx, namespace, name)
		if err != nil {
			return owner{}, ignoreNotFound(err)
		}
		exists, got, deleting, orphan := state(s)
		return ownerOf(exists, got, uid, deleting, orphan), nil
	}
}

// deletingOf lists a namespace's objects of a kind being deleted in the
// foreground.
func deletingOf[S any](v objectView[S], of func(S) (deletingOwner, bool)) func(context.Context, string) ([]deletingOwner, error) {
	return func(ctx context.Context, namespace string) ([]deletingOwner, error) {
		all, _, err := v.List(ctx, namespace)
		if err != nil {
			return nil, err
		}
		var out []deletingOwner
		for _, s := range all {
			if o, ok := of(s); ok {
				out = append(out, o)
			}
		}
		return out, nil
	}
}

// execute runs cmd on the owner o.
func execute[S any, C any](ctx context.Context, ex domain.Executor[S, C], o deletingOwner, cmd C) error {
	_, err := ex.Execute(ctx, domain.Key{Namespace: o.namespace, Name: o.name}, cmd)
	return err
}

// oneOf reads one object of a kind from a view that keeps tombstones, as
// a dependent: ok when it exists and names owners.
func oneOf[S any](v objectView[S], exists func(S) bool, dep func(S) dependent) func(context.Context, string, string) (dependent, bool, error) {
	return func(ctx context.Context, namespace, name string) (dependent, bool, error) {
		s, err := v.Last(ctx, namespace, name)
		if err != nil {
			return dependent{}, false, ignoreNotFound(err)
		}
		d := dep(s)
		return d, exists(s) && len(d.owners) > 0, nil
	}
}

// listOf lists a namespace's objects of a kind that have owners.
func listOf[S any](v lister[S], dep func(S) dependent) func(context.Context, string) ([]dependent, error) {
	return func(ctx context.Context, namespace string) ([]dependent, error) {
		all, _, err := v.List(ctx, namespace)
		if err != nil {
			return nil, err
		}
		var out []dependent
		for _, s := range all {
			if d := dep(s); len(d.owners) > 0 {
				out = append(out, d)
			}
		}
		return out, nil
	}
}

func podKind(rd Readers, repo Repository) *kind {
	return &kind{
		name: "Pod", namespaced: true,
		owner: func(ctx context.Context, namespace, name, uid string) (owner, error) {
			p, err := rd.Pods.Get(ctx, namespace, name)
			return ownerOf(err == nil && p.Exists(), p.UID, uid, false, false), ignoreNotFound(err)
		},
		// Pods a kubelet runs outside herd are not herd's to delete.
		list: func(ctx context.Context, namespace string) ([]dependent, error) {
			herd := domain.SourceHerd
			pods, _, err := rd.Pods.List(ctx, projections.PodFilter{Namespace: namespace, Source: &herd})
			if err != nil {
				return nil, err
			}
			var out []dependent
			for _, p := range pods {
				if d, ok := podDependent(p); ok {
					out = append(out, d)
				}
			}
			return out, nil
		},
		aggregate: domain.PodAggregate,
		one: func(ctx context.Context, namespace, name string) (dependent, bool, error) {
			p, err := rd.Pods.Get(ctx, namespace, name)
			if err != nil {
				return dependent{}, false, ignoreNotFound(err)
			}
			d, ok := podDependent(p)
			return d, ok && p.Source == domain.SourceHerd, nil
		},
		del: func(ctx context.Context, d dependent, _ domain.Propagation) error {
			_, err := repo.PodCommands().Execute(ctx, d.key(), domain.IfSamePod{UID: d.uid, Command: domain.DeletePod{}})
			return err
		},
		release: func(ctx context.Context, d dependent, uid string) error {
			_, err := repo.PodCommands().Execute(ctx, d.key(), domain.IfSamePod{UID: d.uid, Command: domain.ReleasePod{UID: uid}})
			return err
		},
	}
}

// configMapKind is the ConfigMaps: their owners are part of their
// content.
func configMapKind(rd Readers, repo Repository) *kind {
	return contentKind("ConfigMap", "", domain.ConfigMapAggregate, rd.ConfigMaps, configMapDependent, repo.ConfigMapCommands(),
		func(rv int64) domain.ConfigMapCommand {
			return domain.Precondition[domain.ConfigMapCommand]{ResourceVersion: rv, Command: domain.DeleteConfigMap{}}
		},
		func(c domain.ConfigMap, uid string) domain.ConfigMapCommand {
			c.Owners = withoutOwner(c.Owners, uid)
			return domain.Precondition[domain.ConfigMapCommand]{ResourceVersion: c.ResourceVersion, Command: domain.UpdateConfigMap{Meta: c.ObjectMeta, Spec: c.Spec}}
		})
}

// leaseKind is the Leases: a lease's owners are part of its content.
func leaseKind(rd Readers, repo Repository) *kind {
	return contentKind("Lease", "coordination.k8s.io", domain.LeaseAggregate, rd.Leases, leaseDependent, repo.LeaseCommands(),
		func(rv int64) domain.LeaseCommand {
			return domain.Precondition[domain.LeaseCommand]{ResourceVersion: rv, Command: domain.DeleteLease{}}
		},
		func(l domain.Lease, uid string) domain.LeaseCommand {
			content := domain.LeaseContent{Labels: l.Labels, Annotations: l.Annotations, Owners: withoutOwner(l.Owners, uid), Spec: l.Spec}
			return domain.Precondition[domain.LeaseCommand]{ResourceVersion: l.ResourceVersion, Command: domain.UpdateLease{Content: content}}
		})
}

// contentKind is a kind whose view keeps no tombstones and whose owners
// are part of its content, as the collector sees it, indexed: an owner, and a
// dependent deleted (del, on the object at resourceVersion rv) or
// released by rewriting its content as read without the owner's
// reference (release), unless it changed since it was judged.
func contentKind[S, C any](name, group string, aggregate *domain.Aggregate, v liveView[S], dep func(S) dependent,
	cmds domain.Executor[S, C], del func(rv int64) C, release func(s S, uid string) C) *kind {
	return &kind{
		name: name, group: group, namespaced: true, aggregate: aggregate, indexed: true,
		owner: func(ctx context.Context, namespace, name, uid string) (owner, error) {
			s, err := v.Get(ctx, namespace, name)
			return ownerOf(err == nil, dep(s).uid, uid, false, false), ignoreNotFound(err)
		},
		list: listOf(v, dep),
		one: func(ctx context.Context, namespace, name string) (dependent, bool, error) {
			s, err := v.Get(ctx, namespace, name)
			if err != nil {
				return dependent{}, false, ignoreNotFound(err)
			}
			d := dep(s)
			return d, len(d.owners) > 0, nil
		},
		del: func(ctx context.Context, d dependent, _ domain.Propagation) error {
			_, err := cmds.Execute(ctx, d.key(), del(d.resourceVersion))
			return err
		},
		release: func(ctx context.Context, d dependent, uid string) error {
			s, err := v.Get(ctx, d.namespace, d.name)
			if err != nil || dep(s).resourceVersion != d.resourceVersion {
				return errors.Join(err, errChanged)
			}
			_, err = cmds.Execute(ctx, d.key(), release(s, uid))
			return err
		},
	}
}

// errChanged says a dependent changed since the collector judged it: the
// next pass judges it again.
var errChanged = errors.New("the object changed since it was read")

// withoutOwner is owners without the one of uid, a copy.
func withoutOwner(owners []domain.OwnerReference, uid string) []domain.OwnerReference {
	var out []domain.OwnerReference
	for _, o := range owners {
		if o.UID != uid {
			out = append(out, o)
		}
	}
	return out
}

// podDependent is a pod as a dependent: ok when it exists and names
// owners.
func podDependent(p domain.Pod) (dependent, bool) {
	return dependent{namespace: p.Namespace, name: p.Name, uid: p.UID, resourceVersion: p.ResourceVersion,
		owners: p.Owners, deleting: p.Terminating()}, len(p.Owners) > 0 && p.Exists()
}

// configMapDependent is a ConfigMap as a dependent.
func configMapDependent(c domain.ConfigMap) dependent {
	return dependent{namespace: c.Namespace, name: c.Name, uid: c.UID, resourceVersion: c.ResourceVersion, owners: c.Owners}
}

// leaseDependent is a Lease as a dependent.
func leaseDependent(l domain.Lease) dependent {
	return dependent{namespace: l.Namespace, name: l.Name, uid: l.UID, resourceVersion: l.ResourceVersion, owners: l.Owners}
}
