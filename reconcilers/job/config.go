package job

import (
	"errors"
	"fmt"
	"time"
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
	var errs []error
	if c.ResyncPeriod <= 0 {
		errs = append(errs, fmt.Errorf("job resync period %s: want a positive duration", c.ResyncPeriod))
	}
	if c.BurstPods <= 0 {
		errs = append(errs, fmt.Errorf("job burst pods %d: want a positive number", c.BurstPods))
	}
	return errors.Join(errs...)
}
