package disruption

import (
	"time"

	"herd/reconcilers"
)

// Config holds the disruption reconciler's settings.
type Config struct {
	// ResyncPeriod is how often every budget is counted again without an
	// event (default 30s): how a lost event heals.
	ResyncPeriod time.Duration
}

// DefaultConfig is what herd runs with unless told otherwise.
func DefaultConfig() Config { return Config{ResyncPeriod: 30 * time.Second} }

// Validate names every setting that is wrong.
func (c Config) Validate() error {
	return reconcilers.Positive("disruption resync period", c.ResyncPeriod)
}
