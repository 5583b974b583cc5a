package app

import (
	"go.uber.org/fx"

	"herd/projections"
)

// commands provides the one command path of each aggregate
// (domain.Executor, and the pods' batch): the unit of work on the
// Writer, deciding with the domain's rules on herd's clock. Adapters and
// reconcilers write through these, not through the repositories.
var commands = fx.Provide(
	(*projections.Writer).NodeCommands,
	(*projections.Writer).PodCommands,
	(*projections.Writer).PodBatch,
	(*projections.Writer).ConfigMapCommands,
	(*projections.Writer).LeaseCommands,
	(*projections.Writer).ReplicaSetCommands,
	(*projections.Writer).DeploymentCommands,
	(*projections.Writer).PodDisruptionBudgetCommands,
	(*projections.Writer).JobCommands,
	(*projections.Writer).CronJobCommands,
	(*projections.Writer).StatefulSetCommands,
	(*projections.Writer).ControllerRevisionCommands,
	(*projections.Writer).DaemonSetCommands,
	(*projections.Writer).NamespaceCommands,
	(*projections.Writer).IPPoolCommands,
	(*projections.Writer).DeviceBindingCommands,
	(*projections.Writer).KubeletTargetsCommands,
	(*projections.Writer).FleetHealthCommands,
)
