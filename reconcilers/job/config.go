package job

import (
	"errors"
	"time"

	"herd/reconcilers"
)

// Config holds the Job reconciler's settings.
type Config struct {
	// ResyncPeriod is how often every Job is looked at without an event
	// (default 30s): how a lost event heals.
	ResyncPeriod time.Duration
	// BurstPods is the most pods one reconcile of a Job creates or
	// deletes (default 500, Kubernetes' MaxPodCreateDeletePerSync); the
	// rest wait for the next, which the pods' own events bring.
	BurstPods int
}

// DefaultConfig is what herd runs with unless told otherwise.
func DefaultConfig() Config {
	return Config{ResyncPeriod: 30 * time.Second, BurstPods: 500}
}

// Validate names every setting that is wrong.
func (c Config) Validate() error {
	return errors.Join(
		reconcilers.Positive("job resync period", c.ResyncPeriod),
		reconcilers.Positive("job burst pods", c.BurstPods))
}
