// Package health is the reconciler that notices silent nodes, with the
// semantics and settings of Kubernetes' node lifecycle controller: past the
// grace period a node's conditions go Unknown, taints follow the
// conditions, and when most of the fleet goes silent together herd suspects
// itself and evicts nothing.
//
// It reads the node view and acts only through domain commands.
package health
