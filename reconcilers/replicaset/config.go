package replicaset

import (
	"errors"
	"time"

	"herd/reconcilers"
)

// Config holds the ReplicaSet reconciler's settings.
type Config struct {
	// ResyncPeriod is how often every ReplicaSet is looked at without an
	// event (default 30s): how an orphan created without an owner is
	// found, and how a lost event heals.
	ResyncPeriod time.Duration
	// BurstReplicas is the most pods one reconcile of a ReplicaSet
	// creates or deletes (default 500, Kubernetes' BurstReplicas); the
	// rest wait for the next, which the pods' own events bring.
	BurstReplicas int
}

// DefaultConfig is what herd runs with unless told otherwise.
func DefaultConfig() Config {
	return Config{ResyncPeriod: 30 * time.Second, BurstReplicas: 500}
}

// Validate names every setting that is wrong.
func (c Config) Validate() error {
	return errors.Join(
		reconcilers.Positive("replicaset resync period", c.ResyncPeriod),
		reconcilers.Positive("replicaset burst replicas", c.BurstReplicas))
}
