// Package ipam is the reconciler that gives pods their addresses. When a
// pod of herd's is bound to a node it gets the lowest free address of the
// configured pools (--pod-cidr), before its node's runtime provisions it;
// when the pod is finalized the address goes back to its pool. A pod that
// finds every pool full stays Pending with a condition saying which pool
// and how full, and is tried again as soon as an address frees.
//
// It reads the pod and IPAM views and acts only through domain commands:
// the pool's stream decides who holds an address, the pod's stream records
// which address the pod was given.
package ipam
