package projections

import (
	"time"

	"herd/domain"
	"herd/projections/command"
)

// writerCommands are a Writer's Commands, one per aggregate.
type writerCommands struct {
	nodes          nodeCommands
	pods           *command.Commands[domain.Pod, domain.PodCommand]
	configMaps     *command.Commands[domain.ConfigMap, domain.ConfigMapCommand]
	leases         *command.Commands[domain.Lease, domain.LeaseCommand]
	replicaSets    *command.Commands[domain.ReplicaSet, domain.ReplicaSetCommand]
	deployments    *command.Commands[domain.Deployment, domain.DeploymentCommand]
	budgets        *command.Commands[domain.PodDisruptionBudget, domain.PodDisruptionBudgetCommand]
	jobs           *command.Commands[domain.Job, domain.JobCommand]
	cronJobs       *command.Commands[domain.CronJob, domain.CronJobCommand]
	statefulSets   *command.Commands[domain.StatefulSet, domain.StatefulSetCommand]
	revisions      *command.Commands[domain.ControllerRevision, domain.ControllerRevisionCommand]
	daemonSets     *command.Commands[domain.DaemonSet, domain.DaemonSetCommand]
	namespaces     *command.Commands[domain.Namespace, domain.NamespaceCommand]
	ipPools        ipPoolCommands
	deviceBindings *command.Commands[domain.DeviceBinding, domain.DeviceCommand]
	kubeletTargets *command.Commands[domain.KubeletTargets, domain.KubeletTargetsCommand]
	fleet          *command.Commands[domain.FleetHealth, domain.FleetCommand]
}

func newWriterCommands(w *Writer) *writerCommands {
	return &writerCommands{
		nodes:          nodeCommands{Commands: newCommands(w, nodes, domain.DecideNode), w: w},
		pods:           newCommands(w, pods, domain.DecidePod),
		configMaps:     newCommands(w, configMaps.aggregate, domain.DecideObject[domain.ConfigMap]),
		leases:         newCommands(w, leases, domain.DecideLease),
		replicaSets:    newCommands(w, replicaSets.aggregate, domain.DecideObject[domain.ReplicaSet]),
		deployments:    newCommands(w, deployments.aggregate, domain.DecideObject[domain.Deployment]),
		budgets:        newCommands(w, podDisruptionBudgets.aggregate, domain.DecideObject[domain.PodDisruptionBudget]),
		jobs:           newCommands(w, jobs.aggregate, domain.DecideObject[domain.Job]),
		cronJobs:       newCommands(w, cronJobs.aggregate, domain.DecideObject[domain.CronJob]),
		statefulSets:   newCommands(w, statefulSets.aggregate, domain.DecideObject[domain.StatefulSet]),
		revisions:      newCommands(w, controllerRevisions.aggregate, domain.DecideObject[domain.ControllerRevision]),
		daemonSets:     newCommands(w, daemonSets.aggregate, domain.DecideObject[domain.DaemonSet]),
		namespaces:     newCommands(w, namespaces, domain.DecideNamespace),
		ipPools:        ipPoolCommands{w},
		deviceBindings: newCommands(w, deviceBindings, domain.DecideDevice),
		kubeletTargets: command.NewCommands(w.unit, kubeletTargets.on(w), domain.DecideKubeletTargets, command.Singleton(kubeletTargetsKey)),
		fleet:          command.NewCommands(w.unit, fleet.on(w), domain.DecideFleet, command.Singleton(fleetKey)),
	}
}

// newCommands is the Commands of the aggregate a on w, deciding with
// decide, keyed by Key.String.
func newCommands[S, C any](w *Writer, a *aggregate[S], decide func(S, C, time.Time) ([]domain.Event, error)) *command.Commands[S, C] {
	return command.NewCommands(w.unit, a.on(w), decide, nil)
}

// cmds returns w's Commands.
func (w *Writer) cmds() *writerCommands { return w.commands }

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

// CronJobCommands is how a CronJob is commanded: by the API, and by the
// reconciler that records its runs.
func (w *Writer) CronJobCommands() domain.Executor[domain.CronJob, domain.CronJobCommand] {
	return w.cmds().cronJobs
}

// StatefulSetCommands is how a StatefulSet is commanded: by the API, and
// by the reconciler that records its status.
func (w *Writer) StatefulSetCommands() domain.Executor[domain.StatefulSet, domain.StatefulSetCommand] {
	return w.cmds().statefulSets
}

// ControllerRevisionCommands is how a ControllerRevision is commanded: by
// the API, by the statefulset reconciler that keeps its StatefulSets'
// revisions, and by the garbage collector.
func (w *Writer) ControllerRevisionCommands() domain.Executor[domain.ControllerRevision, domain.ControllerRevisionCommand] {
	return w.cmds().revisions
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
