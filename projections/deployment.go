package projections

import (
	"herd/domain"
	"herd/events"
)

// deployments describes the Deployment: its row in deployments.
var deployments = describeObjectRows(domain.DeploymentAggregate, "deployments", "deployments.apps",
	domain.EvolveDeployment)

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
