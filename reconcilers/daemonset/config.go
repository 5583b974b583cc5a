package daemonset

import (
	"errors"
	"time"

	"herd/reconcilers"
)

// Config holds the DaemonSet reconciler's settings.
type Config struct {
	// ResyncPeriod is how often every DaemonSet is looked at without an
	// event (default 30s): how an orphan created without an owner is
	// found, and how a lost event heals.
	ResyncPeriod time.Duration
	// BurstReplicas is the most pods one reconcile of a DaemonSet
	// creates, and the most it deletes (default 2000); the rest wait for
	// the next reconcile, which the pods' own events bring. Kubernetes'
	// controller takes 250 from its in-memory caches; each of herd's
	// reconciles reads the fleet's nodes and the namespace's pods from
	// the views, so a DaemonSet over 10,000 nodes took 20 s in bursts of
	// 500 and 10 s in bursts of 2000 (BENCHMARKS.md), while a node that
	// joins meanwhile waits for one burst, about 2 s, rather than for all.
	BurstReplicas int
	// RoomRetry is how soon a DaemonSet whose pod a node has no room for
	// is looked at again (default 10s, kube-scheduler's longest pod
	// backoff): a pod leaving the node brings no event to it.
	RoomRetry time.Duration
}

// DefaultConfig is what herd runs with unless told otherwise.
func DefaultConfig() Config {
	return Config{ResyncPeriod: 30 * time.Second, BurstReplicas: 2000, RoomRetry: 10 * time.Second}
}

// Validate names every setting that is wrong.
func (c Config) Validate() error {
	return errors.Join(
		reconcilers.Positive("daemonset resync period", c.ResyncPeriod),
		reconcilers.Positive("daemonset burst replicas", c.BurstReplicas),
		reconcilers.Positive("daemonset room retry", c.RoomRetry))
}
