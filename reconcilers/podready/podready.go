package podready

import (
	"context"
	"errors"
	"fmt"

	"go.uber.org/fx"
	"go.uber.org/zap"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/reconcilers"
)

// NodeReader is what the reconciler reads of the nodes: one at a time.
type NodeReader interface {
	// Get returns the named node, or domain.ErrNotFound.
	Get(ctx context.Context, name string) (domain.Node, error)
}

// PodReader is what the reconciler reads of the pods: one pod, and
// those bound to one node.
type PodReader interface {
	// Get returns the pod, or domain.ErrNotFound.
	Get(ctx context.Context, namespace, name string) (domain.Pod, error)
	// List returns the pods that match f, and the view's resource
	// version.
	List(ctx context.Context, f projections.PodFilter) ([]domain.Pod, int64, error)
}

var (
	_ NodeReader = (*projections.NodeView)(nil)
	_ PodReader  = (*projections.PodView)(nil)
)

// Reconciler marks the pods of nodes that are not Ready not ready. Its
// keys are nodes (their conditions turning, a pod bound to them) and pods
// (a status reported).
type Reconciler struct {
	commands domain.BatchExecutor[domain.Pod, domain.PodCommand]
	pods     PodReader
	nodes    NodeReader
	log      *zap.Logger
}

var _ reconcilers.Reconciler = (*Reconciler)(nil)

// New returns the reconciler.
func New(commands domain.BatchExecutor[domain.Pod, domain.PodCommand], pods PodReader, nodes NodeReader, log *zap.Logger) *Reconciler {
	return &Reconciler{commands: commands, pods: pods, nodes: nodes, log: log.Named("podready")}
}

// Params are what the fx module builds the reconciler from.
type Params struct {
	fx.In

	Commands domain.BatchExecutor[domain.Pod, domain.PodCommand]
	Pods     *projections.PodView
	Nodes    *projections.NodeView
	Logger   *zap.Logger
}

// Module adds the reconciler to the reconcilers' value group, under the
// name "podready" that --reconcilers switches.
var Module = fx.Module("podready", reconcilers.Provide(func(p Params) *Reconciler {
	return New(p.Commands, p.Pods, p.Nodes, p.Logger)
}))

// Name implements reconcilers.Reconciler.
func (r *Reconciler) Name() string { return "podready" }

// Watches implements reconcilers.Reconciler: a node's conditions turning
// (Ready leaving True among them: reported, marked silent, or a clean
// stop's), mapped to the node; a pod's binding, mapped to its node; a
// pod's status reported by its runtime or observed from its kubelet,
// mapped to the pod (either may report it Ready while its node is not).
func (r *Reconciler) Watches() *reconcilers.Watches {
	w := reconcilers.Watch()
	return w.
		Takes(domain.NodeAggregate, domain.PodAggregate).
		Watches(reconcilers.EventTypesOf(domain.NodeConditionChanged{}), reconcilers.KeysOf).
		Watches(reconcilers.EventTypesOf(domain.PodScheduled{}), w.ToBoundNode).
		Watches(reconcilers.EventTypesOf(domain.PodStatusUpdated{}, domain.PodObserved{}), reconcilers.KeysOf)
}

// Reconcile marks the ready pods of a node that is not Ready, or one pod
// whose node is not Ready: herd's pods and those it observes through a
// kubelet alike, as Kubernetes marks every pod of such a node. A
// kubelet's pod is reported as it is once herd hears from the kubelet
// again (its poller reports the pods anew after an outage).
func (r *Reconciler) Reconcile(ctx context.Context, key reconcilers.Key) (reconcilers.Result, error) {
	ctx = events.WithMetadata(ctx, events.Metadata{Actor: "system:herd:podready", Source: "reconciler/podready"})
	if key.Aggregate == domain.PodAggregate {
		return reconcilers.Result{}, r.reconcilePod(ctx, key)
	}
	n, ok, err := r.notReadyNode(ctx, key.Name)
	if !ok || err != nil {
		return reconcilers.Result{}, err
	}
	pods, _, err := r.pods.List(ctx, projections.PodFilter{NodeName: n.Name})
	if err != nil {
		return reconcilers.Result{}, err
	}
	return reconcilers.Result{}, r.mark(ctx, n, pods)
}

// reconcilePod marks one pod that reports Ready on a node that is not.
func (r *Reconciler) reconcilePod(ctx context.Context, key reconcilers.Key) error {
	p, err := r.pods.Get(ctx, key.Namespace, key.Name)
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if p.Spec.NodeName == "" || !domain.PodReady(p) {
		return nil
	}
	n, ok, err := r.notReadyNode(ctx, p.Spec.NodeName)
	if !ok || err != nil {
		return err
	}
	return r.mark(ctx, n, []domain.Pod{p})
}

// notReadyNode is the named node when it exists and its Ready is not
// True (False, Unknown, or never reported).
func (r *Reconciler) notReadyNode(ctx context.Context, name string) (domain.Node, bool, error) {
	n, err := r.nodes.Get(ctx, name)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.Node{}, false, nil
	}
	if err != nil {
		return domain.Node{}, false, err
	}
	if c, ok := n.Condition(domain.ConditionReady); ok && c.Status == domain.ConditionTrue {
		return domain.Node{}, false, nil
	}
	return n, true, nil
}

// mark marks those of pods that are Ready not ready, in one unit of
// work, each provided it is still the same pod on n; their cause is n's
// Ready leaving True, as read.
func (r *Reconciler) mark(ctx context.Context, n domain.Node, pods []domain.Pod) error {
	var cmds []domain.Keyed[domain.PodCommand]
	for _, p := range pods {
		if !domain.PodReady(p) {
			continue
		}
		cmds = append(cmds, domain.Keyed[domain.PodCommand]{Key: domain.Key{Namespace: p.Namespace, Name: p.Name},
			Command: domain.IfSamePod{UID: p.UID, NodeName: n.Name, Command: domain.MarkPodNotReady{Node: n.Name}}})
	}
	if len(cmds) == 0 {
		return nil
	}
	ctx, err := reconcilers.BecauseOf(ctx, readyLeft(n))
	if err != nil {
		return fmt.Errorf("node %s: cause: %w", n.Name, err)
	}
	if _, _, err := r.commands.ExecuteBatch(ctx, cmds); err != nil {
		return fmt.Errorf("mark the pods of node %s not ready: %w", n.Name, err)
	}
	r.log.Info("marked pods not ready: their node is not Ready", zap.String("node", n.Name), zap.Int("pods", len(cmds)))
	return nil
}

// readyLeft is the change that left n's Ready not True, as read: the last
// turn of its Ready condition (a report, the health rules' mark of a
// silent node, a clean stop).
func readyLeft(n domain.Node) reconcilers.Change {
	return reconcilers.ChangeOf(domain.NodeStream(n.Name), n.Version, func(e domain.NodeConditionChanged) bool {
		return e.Type == domain.ConditionReady && e.Status != domain.ConditionTrue
	})
}
