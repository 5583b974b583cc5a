package deployment

import (
	"time"

	"herd/reconcilers"
)

// Config holds the Deployment reconciler's settings.
type Config struct {
	// ResyncPeriod is how often every Deployment is looked at without an
	// event (default 30s): how a lost event heals, and how the owner
	// index learns the ReplicaSets that existed before herd started.
	ResyncPeriod time.Duration
}

// DefaultConfig is what herd runs with unless told otherwise.
func DefaultConfig() Config { return Config{ResyncPeriod: 30 * time.Second} }

// Validate names what is wrong with the settings.
func (c Config) Validate() error {
	return reconcilers.Positive("deployment resync period", c.ResyncPeriod)
}
