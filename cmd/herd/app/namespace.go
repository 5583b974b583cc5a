package app

import (
	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/projections"
	"herd/reconcilers/namespace"
)

// namespaceViews are the views the namespace reconciler reads: the
// namespaces, and what a namespace holds.
type namespaceViews struct {
	fx.In

	Namespaces           *projections.NamespaceView
	Pods                 *projections.PodView
	ConfigMaps           *projections.ConfigMapView
	Leases               *projections.LeaseView
	Deployments          *projections.DeploymentView
	ReplicaSets          *projections.ReplicaSetView
	StatefulSets         *projections.StatefulSetView
	DaemonSets           *projections.DaemonSetView
	CronJobs             *projections.CronJobView
	Jobs                 *projections.JobView
	PodDisruptionBudgets *projections.PodDisruptionBudgetView
	ControllerRevisions  *projections.ControllerRevisionView
}

// namespaceReconciler empties a namespace being deleted of every kind
// herd stores in one: the owners first (CronJobs before their Jobs,
// Deployments before their ReplicaSets), so that none makes pods while
// its namespace goes.
func namespaceReconciler(w *projections.Writer, v namespaceViews, clk clock.Clock, log *zap.Logger) *namespace.Reconciler {
	return namespace.New(namespace.DefaultResyncPeriod, w, v.Namespaces, v.Pods, v.ConfigMaps, v.Leases, clk, log,
		namespace.ObjectsOf("CronJob", v.CronJobs.List, w.CronJobCommands(), domain.CronJobDeleted{}, domain.CronJobCommand(domain.DeleteCronJob{})),
		namespace.ObjectsOf("Deployment", v.Deployments.List, w.DeploymentCommands(), domain.DeploymentDeleted{}, domain.DeploymentCommand(domain.DeleteDeployment{})),
		namespace.ObjectsOf("StatefulSet", v.StatefulSets.List, w.StatefulSetCommands(), domain.StatefulSetDeleted{}, domain.StatefulSetCommand(domain.DeleteStatefulSet{})),
		namespace.ObjectsOf("DaemonSet", v.DaemonSets.List, w.DaemonSetCommands(), domain.DaemonSetDeleted{}, domain.DaemonSetCommand(domain.DeleteDaemonSet{})),
		namespace.ObjectsOf("ReplicaSet", v.ReplicaSets.List, w.ReplicaSetCommands(), domain.ReplicaSetDeleted{}, domain.ReplicaSetCommand(domain.DeleteReplicaSet{})),
		namespace.ObjectsOf("Job", v.Jobs.List, w.JobCommands(), domain.JobDeleted{}, domain.JobCommand(domain.DeleteJob{})),
		namespace.ObjectsOf("PodDisruptionBudget", v.PodDisruptionBudgets.List, w.PodDisruptionBudgetCommands(), domain.PodDisruptionBudgetDeleted{},
			domain.PodDisruptionBudgetCommand(domain.DeletePodDisruptionBudget{})),
		namespace.ObjectsOf("ControllerRevision", v.ControllerRevisions.List, w.ControllerRevisionCommands(), domain.ControllerRevisionDeleted{},
			domain.ControllerRevisionCommand(domain.DeleteControllerRevision{})),
	)
}
