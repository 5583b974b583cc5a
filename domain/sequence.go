package domain

import "time"

// NodeSequence is several node commands issued as one: each is decided on
// the node as the events of those before it leave it, and the first
// refusal refuses them all. It is how a caller registers a node and takes
// its first status report in one unit of work.
type NodeSequence []NodeCommand

func (s NodeSequence) decideNode(n Node, now time.Time) ([]Event, error) {
	return decideSequence(n, now, s, DecideNode, EvolveNode)
}

// PodSequence is several pod commands issued as one, as NodeSequence is
// for nodes: a pod marked as a disruption target and deleted in one unit
// of work.
type PodSequence []PodCommand

func (s PodSequence) decidePod(p Pod, now time.Time) ([]Event, error) {
	return decideSequence(p, now, s, DecidePod, EvolvePod)
}
