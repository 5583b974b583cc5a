package reconcilers

import (
	"context"
	"fmt"
	"strings"

	"go.uber.org/zap"

	"herd/domain"
	"herd/projections"
)

// PodLister lists the pods that match a filter, and the view's resource
// version: the pod view.
type PodLister interface {
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
}

// Controlled is what a reconciler whose kind controls pods (a
// ReplicaSet's, a Job's, a DaemonSet's) does with them as every such
// reconciler does: it reads herd's own pods of one object through the
// pod view's controller index, noting their owners for the pods' events
// to come (Owners), and collects the pods of an object that is gone or
// deletes those of one deleted in the foreground, as Kubernetes' garbage
// collector would. Pods a kubelet runs are its to manage, and herd
// cannot delete them: they are never read.
type Controlled struct {
	kind   string
	noun   string
	pods   PodLister
	writes domain.BatchExecutor[domain.Pod, domain.PodCommand]
	owners *OwnerIndex
	// selectors are the objects' selectors, for the orphans they adopt
	// (Watches.Adopts).
	selectors *SelectorIndex
	batch     int
	log       *zap.Logger
}

// NewControlled is the pods of the objects of kind (as owner references
// name it: "ReplicaSet"), read from pods and written through writes at
// most batch commands a unit of work (0 for any number), logged on log.
func NewControlled(kind string, pods PodLister, writes domain.BatchExecutor[domain.Pod, domain.PodCommand], batch int, log *zap.Logger) *Controlled {
	return &Controlled{kind: kind, noun: strings.ToLower(kind), pods: pods, writes: writes, owners: NewOwnerIndex(kind),
		selectors: NewSelectorIndex(), batch: batch, log: log}
}

// Selectors maps an orphan pod's events to the objects of the kind whose
// selector matches it (Watches.Adopts), from the selectors Adopting was
// told.
func (c *Controlled) Selectors() *SelectorIndex { return c.selectors }

// Adopting records whether the object key names adopts orphans now, and
// by which selector (SelectorIndex.Track).
func (c *Controlled) Adopting(key Key, sel domain.LabelSelector, adopts bool) {
	c.selectors.Track(domain.Key{Namespace: key.Namespace, Name: key.Name}, sel, adopts)
}

// Owners maps a pod's events to the object of the kind that controls it
// (Watches.Owns), from the pods Read has seen.
func (c *Controlled) Owners() *OwnerIndex { return c.owners }

// Read returns herd's own pods of key's namespace that an object of the
// kind called key's name controls, this one's or an earlier one's of the
// name, and the orphans it may adopt when orphans is true; never the rest
// of the namespace.
func (c *Controlled) Read(ctx context.Context, key Key, orphans bool) ([]domain.Pod, error) {
	herd := domain.SourceHerd
	controllers := []string{c.kind + "/" + key.Name}
	if orphans {
		controllers = append(controllers, "")
	}
	pods, _, err := c.pods.List(ctx, projections.PodFilter{Namespace: key.Namespace, Source: &herd, Controllers: controllers})
	if err != nil {
		return nil, fmt.Errorf("list pods of namespace %s: %w", key.Namespace, err)
	}
	c.owners.ObservePods(pods)
	return pods, nil
}

// Collect is the garbage collector of abandoned, the pods whose
// controller, the object owner ("namespace/name") of the kind, is gone
// (CollectCommands); those of the one of UID orphan only lose their
// reference to it.
func (c *Controlled) Collect(ctx context.Context, owner string, abandoned []domain.Pod, orphan string) error {
	if err := c.execute(ctx, CollectCommands(abandoned, orphan)); err != nil {
		return fmt.Errorf("collect pods of %s %s, which is gone: %w", c.noun, owner, err)
	}
	if len(abandoned) > 0 {
		c.log.Info("collected pods of a "+c.noun+" that is gone", append(c.podFields(owner, abandoned), zap.Bool("orphaned", orphan != ""))...)
	}
	return nil
}

// DeleteForeground deletes pods, those of the object owner of the kind
// and UID uid, which is being deleted in the foreground. The garbage
// collector deletes it once every dependent that blocks it is gone, these
// pods and any other (Kubernetes' collector likewise removes the
// foregroundDeletion finalizer).
func (c *Controlled) DeleteForeground(ctx context.Context, owner, uid string, pods []domain.Pod) error {
	cmds, stopped := ForegroundCommands(pods, uid)
	if err := c.execute(ctx, cmds); err != nil {
		return fmt.Errorf("delete pods of %s %s, deleted in the foreground: %w", c.noun, owner, err)
	}
	c.Log("deleted pods of a "+c.noun+" deleted in the foreground", owner, stopped)
	return nil
}

// execute runs cmds, in batches of at most c.batch.
func (c *Controlled) execute(ctx context.Context, cmds []domain.Keyed[domain.PodCommand]) error {
	size := c.batch
	if size <= 0 {
		size = len(cmds)
	}
	for start := 0; start < len(cmds); start += size {
		if _, _, err := c.writes.ExecuteBatch(ctx, cmds[start:min(start+size, len(cmds))]); err != nil {
			return err
		}
	}
	return nil
}

// Log logs what was done to some pods of the object owner of the kind,
// if any; more than a screenful are counted rather than named.
func (c *Controlled) Log(msg, owner string, pods []domain.Pod) {
	if len(pods) > 0 {
		c.log.Info(msg, c.podFields(owner, pods)...)
	}
}

// podFields are the owner and its pods in a log line: the pods named, or
// counted past twenty.
func (c *Controlled) podFields(owner string, pods []domain.Pod) []zap.Field {
	if len(pods) > 20 {
		return []zap.Field{zap.String(c.noun, owner), zap.Int("pods", len(pods))}
	}
	names := make([]string, len(pods))
	for i, p := range pods {
		names[i] = p.Name
	}
	return []zap.Field{zap.String(c.noun, owner), zap.Strings("pods", names)}
}

// AbandonedBy is whether a pod not already being deleted is controlled by
// an object of kind called name that is gone: any of that name when uid
// is empty (none of the name exists), else one of another UID (the one of
// the name now is another).
func AbandonedBy(kind, name, uid string) func(domain.Pod) bool {
	return func(p domain.Pod) bool {
		if !p.Exists() || p.Terminating() {
			return false
		}
		ctrl, ok := p.Controller()
		return ok && ctrl.Kind == kind && ctrl.Name == name && (uid == "" || ctrl.UID != uid)
	}
}

// Filter returns the pods keep keeps.
func Filter(pods []domain.Pod, keep func(domain.Pod) bool) []domain.Pod {
	var out []domain.Pod
	for _, p := range pods {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}
