package projections

import (
	"context"
	"errors"
	"time"

	"herd/domain"
)

// Commands is the application's one way to issue a command to aggregates
// of state S with commands C: Execute reads the Writer's clock once,
// decides the command with the domain's decide function inside the
// aggregate's unit of work (load, decide, append, fold, write the rows,
// commit), and returns the state afterwards. The actor and cause recorded
// with the events come from ctx (events.WithMetadata). It implements
// domain.Executor and domain.BatchExecutor.
type Commands[S, C any] struct {
	w      *Writer
	of     *aggregate[S]
	decide func(S, C, time.Time) ([]domain.Event, error)
	// key turns a domain.Key into the aggregate's stream key; nil is
	// Key.String. The aggregates of which there is one map the zero Key
	// to their one stream.
	key func(domain.Key) string
}

// newCommands is the Commands of the aggregate a, deciding with decide.
func newCommands[S, C any](w *Writer, a *aggregate[S], decide func(S, C, time.Time) ([]domain.Event, error)) *Commands[S, C] {
	return &Commands[S, C]{w: w, of: a, decide: decide}
}

var (
	_ domain.Executor[domain.Pod, domain.PodCommand]      = (*Commands[domain.Pod, domain.PodCommand])(nil)
	_ domain.BatchExecutor[domain.Pod, domain.PodCommand] = (*Commands[domain.Pod, domain.PodCommand])(nil)
)

// Execute implements domain.Executor.
func (c *Commands[S, C]) Execute(ctx context.Context, key domain.Key, cmd C) (S, error) {
	now := c.w.clock.Now()
	return c.of.update(ctx, c.w, c.streamKey(key), func(s S) ([]domain.Event, error) {
		return c.decide(s, cmd, now)
	})
}

// ExecuteBatch implements domain.BatchExecutor: every command in one
// transaction, each on its own aggregate and decided on it as the ones
// before it in the batch left it. The scheduler binds its decisions this
// way, paying for one commit per batch rather than one per pod.
func (c *Commands[S, C]) ExecuteBatch(ctx context.Context, cmds []domain.Keyed[C]) ([]S, []error, error) {
	return executeBatch(ctx, c.w, cmds, c.decide, func(tx unitTx, k domain.Keyed[C], decide func(S) ([]domain.Event, error)) (S, error) {
		return c.of.updateTx(ctx, c.w, tx, c.streamKey(k.Key), decide)
	})
}

// executeBatch runs cmds in one transaction of w, each decided with
// decide on its aggregate as update loads it, as the ones before it in
// the batch left it; a lenient command's conflict or invalidity is
// answered in refused (nil when none was) instead of failing the batch.
func executeBatch[S, C any](ctx context.Context, w *Writer, cmds []domain.Keyed[C], decide func(S, C, time.Time) ([]domain.Event, error),
	update func(tx unitTx, k domain.Keyed[C], decide func(S) ([]domain.Event, error)) (S, error)) ([]S, []error, error) {
	now := w.clock.Now()
	out := make([]S, len(cmds))
	var refused []error
	err := w.inTx(ctx, func(tx unitTx) error {
		refused = nil // a retried transaction decides afresh
		for i, k := range cmds {
			s, err := update(tx, k, func(s S) ([]domain.Event, error) {
				evs, err := decide(s, k.Command, now)
				if k.Lenient && (errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrInvalid)) {
					if refused == nil {
						refused = make([]error, len(cmds))
					}
					refused[i] = err
					return nil, nil
				}
				if refused != nil {
					// Decided again (on the row rather than a remembered
					// state): only the last decision counts.
					refused[i] = nil
				}
				return evs, err
			})
			if err != nil {
				return err
			}
			out[i] = s
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return out, refused, nil
}

func (c *Commands[S, C]) streamKey(k domain.Key) string {
	if c.key != nil {
		return c.key(k)
	}
	return k.String()
}

// singleton maps every Key to key: the aggregates of which there is one.
func singleton(key string) func(domain.Key) string {
	return func(domain.Key) string { return key }
}

// writerCommands are a Writer's Commands, one per aggregate.
type writerCommands struct {
	nodes          *Commands[domain.Node, domain.NodeCommand]
	pods           *Commands[domain.Pod, domain.PodCommand]
	configMaps     *Commands[domain.ConfigMap, domain.ConfigMapCommand]
	leases         *Commands[domain.Lease, domain.LeaseCommand]
	replicaSets    *Commands[domain.ReplicaSet, domain.ReplicaSetCommand]
	deployments    *Commands[domain.Deployment, domain.DeploymentCommand]
	budgets        *Commands[domain.PodDisruptionBudget, domain.PodDisruptionBudgetCommand]
	jobs           *Commands[domain.Job, domain.JobCommand]
	daemonSets     *Commands[domain.DaemonSet, domain.DaemonSetCommand]
	namespaces     *Commands[domain.Namespace, domain.NamespaceCommand]
	ipPools        ipPoolCommands
	deviceBindings *Commands[domain.DeviceBinding, domain.DeviceCommand]
	kubeletTargets *Commands[domain.KubeletTargets, domain.KubeletTargetsCommand]
	fleet          *Commands[domain.FleetHealth, domain.FleetCommand]
}

func newWriterCommands(w *Writer) *writerCommands {
	c := &writerCommands{
		nodes:          newCommands(w, nodes, domain.DecideNode),
		pods:           newCommands(w, pods, domain.DecidePod),
		configMaps:     newCommands(w, configMaps.aggregate, domain.DecideConfigMap),
		leases:         newCommands(w, leases, domain.DecideLease),
		replicaSets:    newCommands(w, replicaSets.aggregate, domain.DecideReplicaSet),
		deployments:    newCommands(w, deployments.aggregate, domain.DecideDeployment),
		budgets:        newCommands(w, podDisruptionBudgets.aggregate, domain.DecidePodDisruptionBudget),
		jobs:           newCommands(w, jobs.aggregate, domain.DecideJob),
		daemonSets:     newCommands(w, daemonSets.aggregate, domain.DecideDaemonSet),
		namespaces:     newCommands(w, namespaces, domain.DecideNamespace),
		ipPools:        ipPoolCommands{w},
		deviceBindings: newCommands(w, deviceBindings, domain.DecideDevice),
		kubeletTargets: newCommands(w, kubeletTargets, domain.DecideKubeletTargets),
		fleet:          newCommands(w, fleet, domain.DecideFleet),
	}
	c.kubeletTargets.key = singleton(kubeletTargetsKey)
	c.fleet.key = singleton(fleetKey)
	return c
}

// cmds returns w's Commands; a Writer not made by NewWriter (a test's)
// gets new ones.
func (w *Writer) cmds() *writerCommands {
	if w.commands != nil {
		return w.commands
	}
	return newWriterCommands(w)
}

// NodeCommands is how a node is commanded.
func (w *Writer) NodeCommands() domain.Executor[domain.Node, domain.NodeCommand] {
	return w.cmds().nodes
}

// PodCommands is how a pod is commanded.
func (w *Writer) PodCommands() domain.Executor[domain.Pod, domain.PodCommand] { return w.cmds().pods }

// PodBatch is how several pods are commanded in one unit of work.
func (w *Writer) PodBatch() domain.BatchExecutor[domain.Pod, domain.PodCommand] { return w.cmds().pods }

// ConfigMapCommands is how a ConfigMap is commanded.
func (w *Writer) ConfigMapCommands() domain.Executor[domain.ConfigMap, domain.ConfigMapCommand] {
	return w.cmds().configMaps
}

// LeaseCommands is how a lease is commanded.
func (w *Writer) LeaseCommands() domain.Executor[domain.Lease, domain.LeaseCommand] {
	return w.cmds().leases
}

// ReplicaSetCommands is how a ReplicaSet is commanded: by the API, and
// by the reconciler that records its status. Its DryRun decides a
// command without writing it.
func (w *Writer) ReplicaSetCommands() domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand] {
	return w.cmds().replicaSets
}

// DeploymentCommands is how a Deployment is commanded: by the API, and
// by the reconciler that records its status.
func (w *Writer) DeploymentCommands() domain.Executor[domain.Deployment, domain.DeploymentCommand] {
	return w.cmds().deployments
}

// PodDisruptionBudgetCommands is how a PodDisruptionBudget is
// commanded: by the API, and by the reconciler that records its status.
// An eviction spends a budget through Evictions, not through these.
func (w *Writer) PodDisruptionBudgetCommands() domain.Executor[domain.PodDisruptionBudget, domain.PodDisruptionBudgetCommand] {
	return w.cmds().budgets
}

// JobCommands is how a Job is commanded: by the API, and by the
// reconciler that counts its pods and records its status.
func (w *Writer) JobCommands() domain.Executor[domain.Job, domain.JobCommand] {
	return w.cmds().jobs
}

// DaemonSetCommands is how a DaemonSet is commanded: by the API, and by
// the reconciler that records its status.
func (w *Writer) DaemonSetCommands() domain.Executor[domain.DaemonSet, domain.DaemonSetCommand] {
	return w.cmds().daemonSets
}

// NamespaceCommands is how a namespace is commanded.
func (w *Writer) NamespaceCommands() domain.Executor[domain.Namespace, domain.NamespaceCommand] {
	return w.cmds().namespaces
}

// IPPoolCommands is how an IP pool is commanded; a pool's Key is its
// CIDR as Name.
func (w *Writer) IPPoolCommands() domain.Executor[domain.IPPool, domain.IPPoolCommand] {
	return w.cmds().ipPools
}

// IPPoolBatch is how addresses for many pods are allocated or released
// in one unit of work, each at the cost of one pod.
func (w *Writer) IPPoolBatch() domain.BatchExecutor[domain.IPPool, domain.IPPoolCommand] {
	return w.cmds().ipPools
}

// DeviceBindingCommands is how the binding of a device name is commanded.
func (w *Writer) DeviceBindingCommands() domain.Executor[domain.DeviceBinding, domain.DeviceCommand] {
	return w.cmds().deviceBindings
}

// KubeletTargetsCommands is how the set of kubelets herd polls is
// commanded; it is one aggregate, whatever the Key.
func (w *Writer) KubeletTargetsCommands() domain.Executor[domain.KubeletTargets, domain.KubeletTargetsCommand] {
	return w.cmds().kubeletTargets
}

// FleetHealthCommands is how the fleet's health is commanded; it is one
// aggregate, whatever the Key.
func (w *Writer) FleetHealthCommands() domain.Executor[domain.FleetHealth, domain.FleetCommand] {
	return w.cmds().fleet
}
