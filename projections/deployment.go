package projections

import (
	"herd/domain"
	"herd/events"
)

// deployments describes the Deployment: its row in deployments.
var deployments = describeJSONRows(domain.DeploymentAggregate, "deployments", "deployments.apps",
	func(namespace, name string) domain.Deployment {
		return domain.Deployment{ObjectMeta: domain.ObjectMeta{Namespace: namespace, Name: name}}
	},
	domain.EvolveDeployment,
	func(d domain.Deployment) jsonRow {
		return jsonRow{namespace: d.Namespace, name: d.Name, deleted: d.Deleted, version: d.Version, position: d.ResourceVersion}
	},
	func(d domain.Deployment, position int64) domain.Deployment { d.ResourceVersion = position; return d },
)

// FoldDeployment folds one logged event of a Deployment's stream into the
// Deployment, as the inline view does: watches and consistent lists use
// it to rebuild a Deployment as it stood at any log position.
func FoldDeployment(d domain.Deployment, rec events.Record) (domain.Deployment, error) {
	return deployments.fold(d, rec)
}

// DeploymentView answers queries about Deployments: the API's reads, the
// state watches start from, and the deployment reconciler's.
type DeploymentView = JSONView[domain.Deployment]

// NewDeploymentView returns a DeploymentView reading the views beside
// log.
func NewDeploymentView(log events.Log) *DeploymentView { return newJSONView(log, deployments) }
