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

// objectView is a kind's view that keeps tombstones (projections.JSONView).
type objectView[S any] interface {
	List(ctx context.Context, namespace string) ([]S, int64, error)
	Last(ctx context.Context, namespace, name string) (S, error)
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
		modelKind("Deployment", "apps", rd.Deployments, itself, repo.DeploymentCommands(), nil, owning),
		modelKind("Job", "batch", rd.Jobs, jobObject, repo.JobCommands(), domain.JobAggregate, owning|depending),
		// A CronJob owns its Jobs, a StatefulSet its pods: deleted after
		// it, before it (in the foreground) or orphaned, as the deletion
		// asked.
		modelKind("CronJob", "batch", rd.CronJobs, itself, repo.CronJobCommands(), nil, owning),
		modelKind("StatefulSet", "apps", rd.StatefulSets, itself, repo.StatefulSetCommands(), nil, owning),
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
func listOf[S any](v objectView[S], dep func(S) dependent) func(context.Context, string) ([]dependent, error) {
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

func configMapKind(rd Readers, repo Repository) *kind {
	return &kind{
		name: "ConfigMap", namespaced: true,
		owner: func(ctx context.Context, namespace, name, uid string) (owner, error) {
			c, err := rd.ConfigMaps.Get(ctx, namespace, name)
			return ownerOf(err == nil, c.UID, uid, false, false), ignoreNotFound(err)
		},
		list: func(ctx context.Context, namespace string) ([]dependent, error) {
			cms, _, err := rd.ConfigMaps.List(ctx, namespace)
			if err != nil {
				return nil, err
			}
			var out []dependent
			for _, c := range cms {
				if len(c.Owners) > 0 {
					out = append(out, configMapDependent(c))
				}
			}
			return out, nil
		},
		aggregate: domain.ConfigMapAggregate,
		one: func(ctx context.Context, namespace, name string) (dependent, bool, error) {
			c, err := rd.ConfigMaps.Get(ctx, namespace, name)
			if err != nil {
				return dependent{}, false, ignoreNotFound(err)
			}
			return configMapDependent(c), len(c.Owners) > 0, nil
		},
		del: func(ctx context.Context, d dependent, _ domain.Propagation) error {
			_, err := repo.ConfigMapCommands().Execute(ctx, d.key(), domain.Precondition[domain.ConfigMapCommand]{ResourceVersion: d.resourceVersion, Command: domain.DeleteConfigMap{}})
			return err
		},
		release: func(ctx context.Context, d dependent, uid string) error {
			c, err := rd.ConfigMaps.Get(ctx, d.namespace, d.name)
			if err != nil || c.ResourceVersion != d.resourceVersion {
				return errors.Join(err, errChanged)
			}
			content := domain.ConfigMapContentOf(c)
			content.Owners = withoutOwner(content.Owners, uid)
			_, err = repo.ConfigMapCommands().Execute(ctx, d.key(), domain.Precondition[domain.ConfigMapCommand]{ResourceVersion: d.resourceVersion, Command: domain.UpdateConfigMap{Content: content}})
			return err
		},
	}
}

func leaseKind(rd Readers, repo Repository) *kind {
	return &kind{
		name: "Lease", group: "coordination.k8s.io", namespaced: true,
		owner: func(ctx context.Context, namespace, name, uid string) (owner, error) {
			l, err := rd.Leases.Get(ctx, namespace, name)
			return ownerOf(err == nil, l.UID, uid, false, false), ignoreNotFound(err)
		},
		list: func(ctx context.Context, namespace string) ([]dependent, error) {
			ls, _, err := rd.Leases.List(ctx, namespace)
			if err != nil {
				return nil, err
			}
			var out []dependent
			for _, l := range ls {
				if len(l.Owners) > 0 {
					out = append(out, leaseDependent(l))
				}
			}
			return out, nil
		},
		aggregate: domain.LeaseAggregate,
		one: func(ctx context.Context, namespace, name string) (dependent, bool, error) {
			l, err := rd.Leases.Get(ctx, namespace, name)
			if err != nil {
				return dependent{}, false, ignoreNotFound(err)
			}
			return leaseDependent(l), len(l.Owners) > 0, nil
		},
		del: func(ctx context.Context, d dependent, _ domain.Propagation) error {
			_, err := repo.LeaseCommands().Execute(ctx, d.key(), domain.Precondition[domain.LeaseCommand]{ResourceVersion: d.resourceVersion, Command: domain.DeleteLease{}})
			return err
		},
		// A lease's owners are part of its content: the release rewrites
		// it as read, unless it changed since.
		release: func(ctx context.Context, d dependent, uid string) error {
			l, err := rd.Leases.Get(ctx, d.namespace, d.name)
			if err != nil || l.ResourceVersion != d.resourceVersion {
				return errors.Join(err, errChanged)
			}
			content := domain.LeaseContent{Labels: l.Labels, Annotations: l.Annotations, Owners: withoutOwner(l.Owners, uid), Spec: l.Spec}
			_, err = repo.LeaseCommands().Execute(ctx, d.key(), domain.Precondition[domain.LeaseCommand]{ResourceVersion: d.resourceVersion, Command: domain.UpdateLease{Content: content}})
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
