// Package drain is the reconciler that empties a node an operator is
// draining (domain.DrainNode has already cordoned it): every one of herd's
// pods on it is evicted — marked DisruptionTarget (EvictionByEvictionAPI)
// and deleted with the drain's grace period, or its own, through the
// Eviction API's rules: a pod whose disruption budget allows no
// disruption now waits, and is tried again as kubectl drain retries a
// 429 — and once none is left the node is recorded Drained. Pods herd only observes on a kubelet
// are the kubelet's to move: they are neither evicted nor waited for.
// Undraining needs nothing from here.
//
// It reads the node and pod views and writes only through domain commands.
package drain
