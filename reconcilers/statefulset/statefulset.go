// Package statefulset is the StatefulSet reconciler: on herd's clock, it
// keeps each StatefulSet's pods NAME-0 to NAME-(replicas-1), as
// Kubernetes' StatefulSet controller (stateful_set_control.go) does.
// With OrderedReady it creates ordinal i only once 0..i-1 are Running
// and Ready, and removes the ordinals beyond the replicas from the
// highest down, one at a time; with Parallel it creates and removes them
// all at once. A pod that is deleted or fails is made again under the
// same name. A new template rolls through the pods from the highest
// ordinal down, one at a time, each after the ones above it are Ready
// again, never below the partition. It keeps a ControllerRevision of
// each template the StatefulSet has had, as Kubernetes' controller does
// (kubectl rollout history lists them, rollout undo patches one back),
// makes a pod below the partition again from the current revision's
// template, not the new one, and records the status kubectl rollout
// status reads.
package statefulset

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
	"herd/reconcilers/history"
)

// kindStatefulSet is the kind an owner reference names a StatefulSet by.
const kindStatefulSet = "StatefulSet"

// Reader is what the reconciler reads of the StatefulSets
// (reconcilers.Reader): the one of a key, and every one on resync.
type Reader = reconcilers.Reader[domain.StatefulSet]

// PodLister is what the reconciler reads of the pods: herd's own, those
// a StatefulSet controls.
type PodLister interface {
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
}

// RevisionReader is what the reconciler reads of the ControllerRevisions.
type RevisionReader = history.Reader

// RevisionCodec turns a StatefulSet's template into a ControllerRevision's
// data and back. The data is in the API's form (a strategic merge patch
// of the apps/v1 StatefulSet, which kubectl rollout undo sends back as it
// is), which the domain does not know: the binary gives the conversions'.
type RevisionCodec interface {
	// Data is the data of the revision of s's template.
	Data(s domain.StatefulSet) ([]byte, error)
	// Template is the template the revision's data restores on s.
	Template(s domain.StatefulSet, data []byte) (domain.PodTemplate, error)
}

// RevisionFuncs is a RevisionCodec of two functions.
type RevisionFuncs struct {
	DataOf     func(s domain.StatefulSet) ([]byte, error)
	TemplateOf func(s domain.StatefulSet, data []byte) (domain.PodTemplate, error)
}

// Data implements RevisionCodec.
func (f RevisionFuncs) Data(s domain.StatefulSet) ([]byte, error) { return f.DataOf(s) }

// Template implements RevisionCodec.
func (f RevisionFuncs) Template(s domain.StatefulSet, data []byte) (domain.PodTemplate, error) {
	return f.TemplateOf(s, data)
}

// Revisions is how the reconciler keeps the StatefulSets'
// ControllerRevisions: it reads them, writes them, and turns templates
// into their data and back.
type Revisions struct {
	Reader RevisionReader
	Cmds   domain.Executor[domain.ControllerRevision, domain.ControllerRevisionCommand]
	Codec  RevisionCodec
}

// Reconciler is the StatefulSet reconciler. Its keys are StatefulSets;
// its resync looks at every one.
type Reconciler struct {
	reconcilers.Kind[domain.StatefulSet]
	sets    Reader
	pods    PodLister
	setCmds domain.Executor[domain.StatefulSet, domain.StatefulSetCommand]
	podCmds domain.Executor[domain.Pod, domain.PodCommand]
	revs    Revisions
	// owners maps a pod's events to its StatefulSet, revOwners a
	// ControllerRevision's; selectors an orphan pod's to the
	// StatefulSets that may adopt it.
	owners    *reconcilers.OwnerIndex
	revOwners *reconcilers.OwnerIndex
	selectors *reconcilers.SelectorIndex
	clock     clock.PassiveClock
	newUID    func() string
	log       *zap.Logger
}

var (
	_ reconcilers.Reconciler = (*Reconciler)(nil)
	_ reconcilers.Resyncer   = (*Reconciler)(nil)
)

// DefaultResyncPeriod is how often every StatefulSet is looked at
// without an event: how a lost event heals.
const DefaultResyncPeriod = 30 * time.Second

// New returns the StatefulSet reconciler; revs keeps its revisions, clk is
// the clock a pod's availability is read on.
func New(sets Reader, pods PodLister, setCmds domain.Executor[domain.StatefulSet, domain.StatefulSetCommand],
	podCmds domain.Executor[domain.Pod, domain.PodCommand], revs Revisions, clk clock.PassiveClock, log *zap.Logger) *Reconciler {
	return &Reconciler{Kind: reconcilers.NewKind("statefulset", domain.StatefulSetAggregate, DefaultResyncPeriod, sets), sets: sets, pods: pods, setCmds: setCmds, podCmds: podCmds, revs: revs,
		owners: reconcilers.NewOwnerIndex(kindStatefulSet), revOwners: reconcilers.NewOwnerIndex(kindStatefulSet),
		selectors: reconcilers.NewSelectorIndex(), clock: clk, newUID: uuid.NewString,
		log: log.Named("statefulset")}
}

// Watches implements reconcilers.Reconciler: StatefulSets, but the
// status the reconciler records itself and a change of their labels or
// annotations alone (its spec says which pods it keeps), the pods each
// controls, and its ControllerRevisions, labels included (the hash a
// revision is known by), as Kubernetes' controller watches them: a
// revision deleted, changed or made by someone else reaches its
// StatefulSet at once, not at the next resync. Those the reconciler
// writes itself reach it too; the reconcile they queue finds the
// revisions as it left them and writes nothing.
func (r *Reconciler) Watches() *reconcilers.Watches {
	return reconcilers.Watch().
		For(domain.StatefulSetAggregate, domain.StatefulSetStatusRecorded{}, domain.StatefulSetMetadataChanged{}).
		Owns(domain.PodAggregate, r.owners, domain.PodFinalized{}, reconcilers.PodStepsOwnersIgnore...).
		Adopts(r.selectors).
		Owns(domain.ControllerRevisionAggregate, r.revOwners, domain.ControllerRevisionDeleted{}).
		Adopts(r.selectors)
}

// Reconcile takes one step of a StatefulSet towards what it asks for and
// records its status. A StatefulSet that is gone, or being deleted in
// the foreground, leaves its pods to the garbage collector.
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = r.Acting(ctx)
	s, err := r.sets.Last(ctx, key.Namespace, key.Name)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return reconcilers.Result{}, fmt.Errorf("get statefulset %s: %w", key, err)
	}
	adopts := s.Exists() && s.DeletionRequestedAt == nil
	r.selectors.Track(domain.Key{Namespace: key.Namespace, Name: key.Name}, s.Spec.Selector, adopts)
	if !adopts {
		return reconcilers.Result{}, nil
	}
	herd := domain.SourceHerd
	read, _, err := r.pods.List(ctx, projections.PodFilter{Namespace: s.Namespace, Source: &herd,
		Controllers: []string{kindStatefulSet + "/" + s.Name, ""}}) // "": the orphans it may adopt
	if err != nil {
		return reconcilers.Result{}, fmt.Errorf("list pods of statefulset %s: %w", s, err)
	}
	r.owners.ObservePods(read)
	owned, err := r.claim(ctx, s, read)
	if err != nil {
		return reconcilers.Result{}, err
	}
	now := r.clock.Now()
	revs, err := r.revisions(ctx, s)
	if err != nil {
		return reconcilers.Result{}, err
	}
	// What the reconcile reads is the StatefulSet's spec and its pods:
	// its writes name the newest change among them (CountCause), as a
	// status counted over pods does; a pod made again under its name
	// may name its predecessor's end instead (create).
	cause, _, err := reconcilers.CountCause(ctx, owned,
		reconcilers.SpecChange(s.Stream(), s.Version, domain.StatefulSetCreated{}, domain.StatefulSetChanged{}))
	if err != nil {
		return reconcilers.Result{}, err
	}
	stepErr := r.step(ctx, s, revs, owned, cause, now)
	st, next := status(s, revs.current.Name, owned, now)
	cctx := because(ctx, cause)
	stepErr = errors.Join(stepErr, r.truncateHistory(cctx, s, revs, st, owned))
	if _, err := r.setCmds.Execute(cctx, s.Key(), domain.RecordStatefulSetStatus{Status: st}); err != nil && !errors.Is(err, domain.ErrNotFound) {
		stepErr = errors.Join(stepErr, fmt.Errorf("record status of statefulset %s: %w", s, err))
	}
	if stepErr != nil || next.IsZero() {
		return reconcilers.Result{}, stepErr
	}
	// A ready pod becomes available with nothing happening to it: come
	// back then.
	return reconcilers.Result{RequeueAfter: next.Sub(now)}, nil
}

// because is ctx whose commands name cause, ctx as it is (the
// fallback) when cause is no record.
func because(ctx context.Context, cause events.Record) context.Context {
	if cause.ID == "" {
		return ctx
	}
	return reconcilers.Because(ctx, cause)
}

// lossOfName are a pod's changes that end it, of which the last by
// another than the reconciler is what a pod made again under the same
// name answers: its deletion, its stop, its finalization (the gate
// the reconciler waits for before it makes the pod again).
var lossOfName = append(slices.Clone(reconcilers.PodLossChanges), domain.PodFinalized{}.EventType())

// runningAndReady is what OrderedReady waits for of a pod before the
// next: Running, Ready, and not being deleted.
func runningAndReady(p domain.Pod) bool {
	return p.Status.Phase == domain.PodRunning && domain.PodReady(p) && !p.Terminating()
}

// step creates, deletes or replaces the StatefulSet's pods as
// Kubernetes' controller's updateStatefulSet does, one pod at a time
// unless the policy is Parallel: first the missing and failed replicas
// from the lowest ordinal up, then the condemned ones (beyond the
// replicas, or with a name not of the set) from the highest down, then
// the rolling update from the highest ordinal down to the partition.
//
// Its writes name cause, the newest change of what the reconcile read;
// a pod made again names its predecessor's end when that is newer.
func (r *Reconciler) step(base context.Context, s domain.StatefulSet, revs revisions, owned []domain.Pod, cause events.Record, now time.Time) error {
	monotonic := s.Spec.PodManagementPolicy != domain.StatefulSetParallel
	replicas := make([]*domain.Pod, s.Spec.Replicas)
	var condemned []domain.Pod
	for i := range owned {
		p := owned[i]
		if ord, ok := Ordinal(s.Name, p.Name); ok && ord < int(s.Spec.Replicas) {
			replicas[ord] = &p
		} else {
			condemned = append(condemned, p)
		}
	}
	// Highest ordinal first; a name not of the set goes first of all.
	slices.SortFunc(condemned, func(a, b domain.Pod) int {
		oa, _ := Ordinal(s.Name, a.Name)
		ob, _ := Ordinal(s.Name, b.Name)
		return ob - oa
	})
	ctx := because(base, cause)
	var errs []error
	for ord, p := range replicas {
		switch {
		case p == nil:
			if err := r.create(base, s, revs, ord, cause); err != nil {
				errs = append(errs, err)
			}
			if monotonic {
				return errors.Join(errs...)
			}
		case p.Finished() && !p.Terminating():
			// A replica that failed or ended is deleted, to be made
			// again under its name.
			if err := r.delete(ctx, s, *p); err != nil {
				errs = append(errs, err)
			}
			if monotonic {
				return errors.Join(errs...)
			}
		case !runningAndReady(*p) && monotonic:
			// Wait for it: the next ordinal comes only after.
			return nil
		}
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	for i, p := range condemned {
		if p.Terminating() {
			if monotonic {
				return nil
			}
			continue
		}
		// A condemned pod that is not ready may go first only if it is
		// the first of them (Kubernetes' rule: never two unhealthy).
		if monotonic && !runningAndReady(p) && i > 0 {
			return nil
		}
		if err := r.delete(ctx, s, p); err != nil {
			errs = append(errs, err)
		}
		if monotonic {
			return errors.Join(errs...)
		}
	}
	if len(errs) > 0 || len(condemned) > 0 {
		return errors.Join(errs...)
	}
	if s.Spec.UpdateStrategy.Type != domain.StatefulSetRollingUpdate {
		return nil
	}
	return r.rollingUpdate(ctx, s, replicas, now)
}

// rollingUpdate replaces the replicas not made from the StatefulSet's
// revision, from the highest ordinal down to the partition, as
// Kubernetes' controller does with maxUnavailable (on by default since
// it reached beta): every replica that is unavailable — not yet made,
// not running and ready for minReadySeconds, or being deleted — counts
// against maxUnavailable, below the partition too, and only
// as many more are deleted, to be made again from the new template, as
// that leaves room for. With the default of 1 that is one pod at a time,
// each replaced once the one before is available again.
func (r *Reconciler) rollingUpdate(ctx context.Context, s domain.StatefulSet, replicas []*domain.Pod, now time.Time) error {
	minReady := time.Duration(s.Spec.MinReadySeconds) * time.Second
	room := maxUnavailable(s)
	for _, p := range replicas {
		if p == nil || !available(*p, minReady, now) {
			room--
		}
	}
	rev := Revision(s)
	for ord := len(replicas) - 1; ord >= int(partition(s)) && room > 0; ord-- {
		p := replicas[ord]
		if p == nil || p.Labels[domain.LabelControllerRevisionHash] == rev || p.Terminating() {
			continue
		}
		if err := r.delete(ctx, s, *p); err != nil {
			return err
		}
		room--
	}
	return nil
}

// available is whether p has been running and ready for minReady, and is
// not being deleted: what a rolling update counts as available.
func available(p domain.Pod, minReady time.Duration, now time.Time) bool {
	if !runningAndReady(p) {
		return false
	}
	c, _ := p.Condition(domain.PodConditionReady)
	return !c.LastTransitionTime.Add(minReady).After(now)
}

// create makes the StatefulSet's pod of ordinal ord: from the current
// revision's template below the partition of a rolling update, from the
// StatefulSet's template otherwise (Kubernetes' newVersionedStatefulSetPod).
//
// It names the newest of cause and the end of the pod's predecessor
// under its name by another (a deletion by hand, a stop, the
// finalization the reconciler waited for), as a ReplicaSet's pod made
// for a lost one names the loss; an end that answered another of the
// predecessor's (the stop or finalization herd's termination made for
// a deletion) names that one (ForeignLossOrigin), so that the pod made
// again names the deletion an operator asked for; one whose predecessor
// the reconciler deleted itself (a rolling update) names cause.
func (r *Reconciler) create(ctx context.Context, s domain.StatefulSet, revs revisions, ord int, cause events.Record) error {
	template, rev := s.Spec.Template, Revision(s)
	if s.Spec.UpdateStrategy.Type == domain.StatefulSetRollingUpdate && ord < int(partition(s)) && revs.current.Name != revs.update.Name {
		template, rev = revs.currentTemplate, revs.current.Name
	}
	c := newPod(s, template, rev, ord, r.newUID())
	end, _, err := reconcilers.LastChange(ctx, reconcilers.Change{Stream: domain.PodStream(c.Namespace, c.Name), Types: lossOfName, Others: true})
	if err != nil {
		return err
	}
	if end.Position > cause.Position {
		origin, foreign, err := reconcilers.ForeignLossOrigin(ctx, end)
		if err != nil {
			return err
		}
		if foreign {
			cause = origin
		}
	}
	ctx = because(ctx, cause)
	if _, err := r.podCmds.Execute(ctx, domain.Key{Namespace: c.Namespace, Name: c.Name}, c); err != nil {
		err = fmt.Errorf("create pod %s of statefulset %s: %w", c.Name, s, err)
		if errors.Is(err, domain.ErrInvalid) {
			// Only a change of the StatefulSet can help.
			return reconcilers.Terminal(err)
		}
		return err
	}
	r.log.Info("created pod", zap.String("statefulset", s.String()), zap.String("pod", c.Name))
	return nil
}

// delete deletes one of the StatefulSet's pods, with its grace period.
func (r *Reconciler) delete(ctx context.Context, s domain.StatefulSet, p domain.Pod) error {
	k := reconcilers.KeyedPod(p, domain.DeletePod{})
	if _, err := r.podCmds.Execute(ctx, k.Key, k.Command); err != nil && !errors.Is(err, domain.ErrNotFound) {
		return fmt.Errorf("delete pod %s of statefulset %s: %w", p.Name, s, err)
	}
	r.log.Info("deleted pod", zap.String("statefulset", s.String()), zap.String("pod", p.Name))
	return nil
}

// status is what the StatefulSet's pods say, as Kubernetes' controller
// counts them: every pod it made, those ready, those available (ready
// for minReadySeconds), those at the current and at the update
// revision; the current revision becomes the update revision once every
// replica is at it. next is when a ready pod becomes available, zero if
// none waits.
func status(s domain.StatefulSet, current string, owned []domain.Pod, now time.Time) (domain.StatefulSetStatus, time.Time) {
	rev := Revision(s)
	st := domain.StatefulSetStatus{ObservedGeneration: s.Generation, UpdateRevision: rev, CurrentRevision: current}
	var next time.Time
	minReady := time.Duration(s.Spec.MinReadySeconds) * time.Second
	for _, p := range owned {
		st.Replicas++
		if runningAndReady(p) {
			st.ReadyReplicas++
			if available(p, minReady, now) {
				st.AvailableReplicas++
			} else if c, _ := p.Condition(domain.PodConditionReady); next.IsZero() || c.LastTransitionTime.Add(minReady).Before(next) {
				next = c.LastTransitionTime.Add(minReady)
			}
		}
		if p.Labels[domain.LabelControllerRevisionHash] == rev {
			st.UpdatedReplicas++
		}
	}
	if st.UpdatedReplicas == s.Spec.Replicas && st.Replicas == s.Spec.Replicas && st.ReadyReplicas == s.Spec.Replicas {
		st.CurrentRevision = rev
	}
	for _, p := range owned {
		if p.Labels[domain.LabelControllerRevisionHash] == st.CurrentRevision {
			st.CurrentReplicas++
		}
	}
	return st, next
}

// Params are what the fx module builds the reconciler from.
type Params struct {
	fx.In

	Sets      Reader
	Pods      PodLister
	SetCmds   domain.Executor[domain.StatefulSet, domain.StatefulSetCommand]
	PodCmds   domain.Executor[domain.Pod, domain.PodCommand]
	Revisions RevisionReader
	RevCmds   domain.Executor[domain.ControllerRevision, domain.ControllerRevisionCommand]
	RevCodec  RevisionCodec
	Clock     clock.Clock
	Logger    *zap.Logger
}

// FromParams is New on what fx provides.
func FromParams(p Params) *Reconciler {
	return New(p.Sets, p.Pods, p.SetCmds, p.PodCmds, Revisions{Reader: p.Revisions, Cmds: p.RevCmds, Codec: p.RevCodec}, p.Clock, p.Logger)
}

// Module adds the StatefulSet reconciler to the reconcilers' value group,
// under the name "statefulset" that --reconcilers switches.
var Module = fx.Module("statefulset", reconcilers.Provide(FromParams))
