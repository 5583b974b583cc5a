// Package health is the reconciler that notices silent nodes, with the
// semantics and settings of Kubernetes' node lifecycle controller: past the
// grace period a node's conditions go Unknown, taints follow the
// conditions, and when most of the fleet goes silent together herd suspects
// itself and evicts nothing. Every start of the rules (herd's start, or a
// replica taking them over) gives every node a full grace period from
// that moment, as the node lifecycle controller does from its own start,
// and is recorded in the log (domain.HealthMonitorStarted).
//
// It reads the node view and acts only through domain commands.
package health
