package garbagecollector

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// DefaultResyncPeriod is how often every namespace is swept without an
// event: what heals a dependent whose owner went in a way no event of its
// namespace announced (a node, a namespace, a crash between the two).
const DefaultResyncPeriod = 30 * time.Second

// Reconciler is the garbage collector. Its keys are namespaces, each pass
// judging every object of the namespace that names owners (after an
// owner went, and on the resync), and single objects that name owners
// (after one was created or its owners changed), judged alone.
type Reconciler struct {
	resync time.Duration
	// kinds are the kinds herd stores by API group and kind, as owner
	// references name them; dependents those that may have owners.
	kinds      map[[2]string]*kind
	dependents []*kind
	// owners are the kinds that may be deleted in the foreground, whose
	// deletion the collector finishes once nothing blocks it.
	owners     []*kind
	namespaces namespaceReader
	log        *zap.Logger
	// byAggregate are the dependents' kinds by their aggregate, for a
	// key that names one object.
	byAggregate map[*domain.Aggregate]*kind
	// index holds the objects of the indexed kinds that name owners, so
	// that a namespace's pass need not list them.
	index index
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// New returns the garbage collector, reading through rd and writing
// through repo, sweeping every namespace every resync.
func New(resync time.Duration, rd Readers, repo Repository, log *zap.Logger) *Reconciler {
	r := &Reconciler{resync: resync, kinds: map[[2]string]*kind{}, namespaces: rd.Namespaces, log: log.Named("garbagecollector"),
		byAggregate: map[*domain.Aggregate]*kind{}}
	for _, k := range kinds(rd, repo) {
		r.kinds[[2]string{k.group, k.name}] = k
		if k.list != nil {
			r.dependents = append(r.dependents, k)
			r.byAggregate[k.aggregate] = k
		}
		if k.deleting != nil {
			r.owners = append(r.owners, k)
		}
	}
	return r
}

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "garbagecollector" }

// Watches implements reconcilers.Reconciler: namespaces, and the objects
// that may name owners. A dependent's change maps to the dependent, and
// an owner's going to its namespace; both are in the stream's name, so
// nothing is decoded. An indexed object's deletion maps to the object
// too, which takes it out of the index.
//
// The runner asks for Watches when the collector starts running, after a
// restart or on each lead a replica takes: the index is emptied then, as
// events went unseen before, and each namespace's next pass reads it in
// full.
func (r *Reconciler) Watches() *reconcilers.Watches {
	r.index.reset()
	w := reconcilers.Watch().Takes(domain.NamespaceAggregate)
	for _, k := range r.dependents {
		w.Takes(k.aggregate)
	}
	return w.
		Watches(dependentChanges, reconcilers.KeysOf).
		Watches(indexedEndings, reconcilers.KeysOf).
		Watches(ownerChanges, reconcilers.ToNamespace)
}

// dependentChanges are the events after which one object is judged
// again: it was created naming owners, or its owners changed (by their
// own event, or by an update that sets them: a ConfigMap's or a
// ControllerRevision's, whether it changes their data or their metadata
// alone; a workload's update that replaces them records them by their
// own event after it). Its own key, not its namespace's: a
// fleet registers its node leases by the hundred thousand in one
// namespace, each naming its node, and judging the namespace on each
// would read every lease of it again each time. A
// pod's creation is not one: pods are created by the thousand by their
// controllers, which exist; one created naming owners already gone waits
// for the next resync.
var dependentChanges = reconcilers.EventTypesOf(
	domain.PodOwnersChanged{},
	domain.ConfigMapCreated{}, domain.ConfigMapUpdated{}, domain.ConfigMapMetadataChanged{},
	domain.LeaseCreated{}, domain.LeaseUpdated{},
	domain.ReplicaSetCreated{}, domain.ReplicaSetOwnersChanged{},
	domain.DeploymentCreated{}, domain.DeploymentMetadataChanged{}, domain.DeploymentOwnersChanged{},
	domain.JobCreated{}, domain.JobOwnersChanged{},
	domain.DaemonSetCreated{}, domain.DaemonSetOwnersChanged{},
	domain.PodDisruptionBudgetCreated{}, domain.PodDisruptionBudgetOwnersChanged{},
	domain.StatefulSetCreated{}, domain.StatefulSetOwnersChanged{},
	domain.CronJobCreated{}, domain.CronJobOwnersChanged{},
	domain.ControllerRevisionCreated{}, domain.ControllerRevisionUpdated{}, domain.ControllerRevisionMetadataChanged{},
	domain.ControllerRevisionOwnersChanged{},
)

// indexedEndings are the deletions of the indexed kinds' objects, after
// which the object, read again, leaves the index. Every other change of
// their owners is among dependentChanges.
var indexedEndings = reconcilers.EventTypesOf(domain.ConfigMapDeleted{}, domain.LeaseDeleted{})

// ownerChanges are the events after which an object's namespace is judged
// again: an object that may be an owner was deleted or is being deleted
// in the foreground (its dependents are found by reading the namespace),
// and a pod that was gone may have blocked an owner's foreground
// deletion.
var ownerChanges = reconcilers.EventTypesOf(
	domain.PodFinalized{},
	domain.ConfigMapDeleted{}, domain.LeaseDeleted{},
	domain.ReplicaSetDeleted{}, domain.ReplicaSetDeletionRequested{},
	domain.DeploymentDeleted{}, domain.DeploymentDeletionRequested{},
	domain.JobDeleted{}, domain.JobDeletionRequested{}, domain.CronJobDeleted{}, domain.CronJobDeletionRequested{},
	domain.StatefulSetDeleted{}, domain.StatefulSetDeletionRequested{},
	domain.DaemonSetDeleted{}, domain.DaemonSetDeletionRequested{},
	domain.PodDisruptionBudgetDeleted{},
)

func namespaceKey(name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.NamespaceAggregate, Name: name}
}

// ResyncPeriod implements reconcilers.Resyncer.
func (r *Reconciler) ResyncPeriod() time.Duration { return r.resync }

// Resync returns every namespace.
func (r *Reconciler) Resync(ctx context.Context) ([]reconcilers.Key, error) {
	nss, _, err := r.namespaces.List(ctx)
	if err != nil {
		return nil, err
	}
	keys := make([]reconcilers.Key, len(nss))
	names := make(map[string]bool, len(nss))
	for i, ns := range nss {
		keys[i] = namespaceKey(ns.Name)
		names[ns.Name] = true
	}
	r.index.resynced(names)
	return keys, nil
}

// Reconcile judges every object of the namespace that names owners and
// deletes or releases those whose owners are gone; then it finishes the
// deletion of the owners deleted in the foreground that no dependent
// blocks any more. The indexed kinds' objects are judged from the index
// once it holds the namespace, listed otherwise (see index).
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:garbagecollector", Source: "reconciler/garbagecollector"})
	if k := r.byAggregate[key.Aggregate]; k != nil {
		d, ok, err := k.one(ctx, key.Namespace, key.Name)
		if err != nil {
			return reconcilers.Result{}, err
		}
		d.kind = k
		if k.indexed {
			if ok {
				r.index.put(d)
			} else {
				r.index.remove(k, key.Namespace, key.Name, 0)
			}
		}
		if !ok {
			return reconcilers.Result{}, nil
		}
		return reconcilers.Result{}, r.collect(ctx, d, map[string]owner{})
	}
	p := &pass{r: r, owners: map[string]owner{}, blocked: map[string]bool{}}
	full := r.index.due(key.Name)
	var before map[depKey]uint64
	if full {
		before = r.index.seqs(key.Name)
	}
	for _, k := range r.dependents {
		if k.indexed && !full {
			continue
		}
		deps, err := k.list(ctx, key.Name)
		if err != nil {
			p.errs = append(p.errs, fmt.Errorf("list %s in %s: %w", k.name, key.Name, err))
			continue
		}
		for i := range deps {
			deps[i].kind = k
		}
		if k.indexed {
			r.index.replace(k, key.Name, deps, before)
		}
		for _, d := range deps {
			p.judge(ctx, d)
		}
	}
	if !full {
		p.judgeIndexed(ctx, key.Name)
	} else if len(p.errs) == 0 {
		r.index.readFully(key.Name)
	}
	if len(p.errs) > 0 {
		// A kind not listed may hold a blocking dependent: no owner's
		// deletion is finished on a partial count.
		return reconcilers.Result{}, errors.Join(p.errs...)
	}
	return reconcilers.Result{}, r.finishForeground(ctx, key.Name, p.blocked)
}

// pass is one pass over a namespace.
type pass struct {
	r *Reconciler
	// owners are the owners read, by uid: many dependents share one.
	owners map[string]owner
	// blocked are the owners' uids a dependent that exists blocks.
	blocked map[string]bool
	errs    []error
}

// block counts the owners d blocks.
func (p *pass) block(d dependent) {
	for _, o := range d.owners {
		if blocks(o) {
			p.blocked[o.UID] = true
		}
	}
}

// judge judges d, which exists as read.
func (p *pass) judge(ctx context.Context, d dependent) {
	p.block(d)
	if err := p.r.collect(ctx, d, p.owners); err != nil {
		p.errs = append(p.errs, err)
	}
}

// judgeIndexed judges the namespace's indexed objects from the index: one
// whose owners all keep it, as last read, is kept without reading it
// again (its references still block its owners' deletion in the
// foreground, as a listed one's do); any other is read again, and judged
// as it is now.
func (p *pass) judgeIndexed(ctx context.Context, namespace string) {
	ix := &p.r.index
	for _, e := range ix.entries(namespace) {
		keep, err := p.r.kept(ctx, e.d, p.owners)
		if err != nil {
			p.errs = append(p.errs, err)
			continue
		}
		if keep {
			p.block(e.d)
			continue
		}
		k := e.d.kind
		d, ok, err := k.one(ctx, namespace, e.d.name)
		if err != nil {
			p.errs = append(p.errs, fmt.Errorf("read %s: %w", e.d, err))
			continue
		}
		if !ok {
			ix.remove(k, namespace, e.d.name, e.seq)
			continue
		}
		d.kind = k
		ix.put(d)
		p.judge(ctx, d)
	}
}

// collect judges one dependent by its owners, as Kubernetes'
// attemptToDeleteItem: kept while one owner exists and is not being
// deleted in the foreground; released from the owners deleted with their
// dependents orphaned; otherwise deleted, in the foreground when an
// owner waits for it (so that its own dependents go first), in the
// background when they are all gone.
func (r *Reconciler) collect(ctx context.Context, d dependent, seen map[string]owner) error {
	if d.deleting {
		return nil
	}
	alive, orphaning, waiting, err := r.ownerStates(ctx, d, seen)
	if err != nil {
		return err
	}
	if keptAsIs(alive, orphaning, waiting) {
		return nil // kept, nothing written: the log is not read
	}
	ctx, err = ownersGone(ctx, d)
	if err != nil {
		return err
	}
	if len(orphaning) > 0 {
		if err := r.release(ctx, d, orphaning); err != nil {
			return err
		}
		r.log.Info("released an object from its owner, deleted with its dependents orphaned", zap.String("object", d.String()), zap.Strings("owners", orphaning))
		return nil // its own change brings the namespace back
	}
	if alive {
		if len(waiting) == 0 {
			return nil
		}
		// Another owner keeps it: it only stops holding the owners
		// deleted in the foreground, which wait for it otherwise
		// (Kubernetes' attemptToDeleteItem takes those references off).
		if err := r.release(ctx, d, waiting); err != nil {
			return err
		}
		r.log.Info("released an object kept by another owner from its owners deleted in the foreground", zap.String("object", d.String()), zap.Strings("owners", waiting))
		return nil
	}
	p := domain.PropagateBackground
	if len(waiting) > 0 {
		p = domain.PropagateForeground
	}
	if err := d.kind.del(ctx, d, p); err != nil && !errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("delete %s, whose owners are gone: %w", d, err)
	}
	r.log.Info("deleted an object whose owners are gone", zap.String("object", d.String()), zap.String("propagation", string(p)))
	return nil
}

// ownerStates reads d's owners, each once a pass (seen): alive says one
// exists and is not being deleted in the foreground; orphaning are the
// uids of those deleted orphaning their dependents, waiting of those
// being deleted in the foreground.
func (r *Reconciler) ownerStates(ctx context.Context, d dependent, seen map[string]owner) (alive bool, orphaning, waiting []string, err error) {
	for _, o := range d.owners {
		st, ok := seen[o.UID]
		if !ok {
			if st, err = r.owner(ctx, d, o); err != nil {
				return false, nil, nil, fmt.Errorf("read owner %s %s of %s: %w", o.Kind, o.Name, d, err)
			}
			seen[o.UID] = st
		}
		switch {
		case st.exists && st.deleting:
			waiting = append(waiting, o.UID)
		case st.exists:
			alive = true
		case st.orphaning:
			orphaning = append(orphaning, o.UID)
		}
	}
	return alive, orphaning, waiting, nil
}

// kept says collect would keep d as it is, writing nothing.
func (r *Reconciler) kept(ctx context.Context, d dependent, seen map[string]owner) (bool, error) {
	if d.deleting {
		return true, nil
	}
	alive, orphaning, waiting, err := r.ownerStates(ctx, d, seen)
	return keptAsIs(alive, orphaning, waiting), err
}

// keptAsIs says an object whose owners are as ownerStates found them is
// kept with nothing written: one owner keeps it, none orphans it, none
// deleted in the foreground waits for it.
func keptAsIs(alive bool, orphaning, waiting []string) bool {
	return alive && len(waiting) == 0 && len(orphaning) == 0
}

// ownersGone is ctx whose commands name the newest deletion (or request
// of one) among d's owners: what a dependent is collected or released
// for, whichever record queued the namespace (another owner's deletion,
// a resync). ctx as it is when the log holds none.
func ownersGone(ctx context.Context, d dependent) (context.Context, error) {
	var changes []reconcilers.Change
	for _, o := range d.owners {
		a := aggregateOfKind(o.Kind)
		if a == nil {
			continue
		}
		key := o.Name
		if a.Namespaced() {
			key = d.namespace + "/" + o.Name
		}
		changes = append(changes, reconcilers.Change{Stream: a.Stream(key), Types: endings(a)})
	}
	return reconcilers.BecauseOfNewest(ctx, changes...)
}

// aggregateOfKind is the aggregate of the kind an owner reference names
// ("StatefulSet": statefulset), nil for one herd does not keep.
func aggregateOfKind(kind string) *domain.Aggregate {
	for _, a := range domain.Aggregates() {
		if strings.EqualFold(a.Name(), kind) {
			return a
		}
	}
	return nil
}

// endings are a's event types that end an object or ask for its end:
// its deletion, the request of one, a namespace's termination, a pod's
// finalization.
func endings(a *domain.Aggregate) []string {
	var out []string
	for _, e := range a.Events() {
		for _, suffix := range []string{"Deleted", "DeletionRequested", "Terminating", "Finalized"} {
			if strings.HasSuffix(e.Type, suffix) {
				out = append(out, e.Type)
				break
			}
		}
	}
	return out
}

// release takes the references to the owners of uids off d.
func (r *Reconciler) release(ctx context.Context, d dependent, uids []string) error {
	for _, uid := range uids {
		if err := d.kind.release(ctx, d, uid); err != nil && !errors.Is(err, domain.ErrNotFound) {
			return fmt.Errorf("release %s from its owner %s: %w", d, uid, err)
		}
	}
	return nil
}

// owner reads the owner o of d; an owner of a kind herd does not serve
// counts as existing.
func (r *Reconciler) owner(ctx context.Context, d dependent, o domain.OwnerReference) (owner, error) {
	k := r.kinds[[2]string{groupOf(o.APIVersion), o.Kind}]
	if k == nil {
		return owner{exists: true}, nil
	}
	ns := ""
	if k.namespaced {
		ns = d.namespace
	}
	return k.owner(ctx, ns, o.Name, o.UID)
}
