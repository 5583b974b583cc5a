package garbagecollector

import (
	"go.uber.org/fx"
	"go.uber.org/zap"

	"herd/projections"
	"herd/reconcilers"
)

// Params are what the fx module builds the collector from.
type Params struct {
	fx.In

	Writer               *projections.Writer
	Pods                 *projections.PodView
	ConfigMaps           *projections.ConfigMapView
	Leases               *projections.LeaseView
	ReplicaSets          *projections.ReplicaSetView
	Deployments          *projections.DeploymentView
	Jobs                 *projections.JobView
	CronJobs             *projections.CronJobView
	StatefulSets         *projections.StatefulSetView
	DaemonSets           *projections.DaemonSetView
	PodDisruptionBudgets *projections.PodDisruptionBudgetView
	ControllerRevisions  *projections.ControllerRevisionView
	Nodes                *projections.NodeView
	Namespaces           *projections.NamespaceView
	Logger               *zap.Logger
}

// FromParams is New on the app's views and writer.
func FromParams(p Params) *Reconciler {
	rd := Readers{
		Pods: p.Pods, ConfigMaps: p.ConfigMaps, Leases: p.Leases, ReplicaSets: p.ReplicaSets, Deployments: p.Deployments,
		Jobs: p.Jobs, CronJobs: p.CronJobs, StatefulSets: p.StatefulSets, DaemonSets: p.DaemonSets, PodDisruptionBudgets: p.PodDisruptionBudgets,
		ControllerRevisions: p.ControllerRevisions, Nodes: p.Nodes, Namespaces: p.Namespaces,
	}
	return New(DefaultResyncPeriod, rd, p.Writer, p.Logger)
}

// Module adds the garbage collector to the reconcilers' value group,
// under the name "garbagecollector" that --reconcilers switches.
var Module = fx.Module("garbagecollector", reconcilers.Provide(FromParams))
