package domain

import "time"

// IfNodeReporting decides Command only on a node that exists and whose
// agent has not stopped; on any other it does nothing, without an error.
// The health monitor marks a silent node with it: a node deleted or
// stopped since the monitor's query is not silent, it is gone or resting.
type IfNodeReporting struct {
	// Command is decided on a reporting node.
	Command NodeCommand
}

func (c IfNodeReporting) decideNode(n Node, now time.Time) ([]Event, error) {
	if !n.Exists() || n.AgentState == AgentStopped {
		return nil, nil
	}
	return DecideNode(n, c.Command, now)
}
