package scheduler

import (
	"errors"
	"fmt"
	"time"
)

// Config tunes the scheduler.
type Config struct {
	// ResyncPeriod is how often every pending pod is tried again without
	// an event (--scheduler-resync-period, default 30s): a safety net for
	// a crash between an event and its pass. Kubernetes' scheduler
	// flushes its unschedulable pods back to its queue on the same 30 s
	// beat. 0 means the default.
	ResyncPeriod time.Duration
	// BindBatchSize is how many bindings commit in one transaction
	// (--scheduler-bind-batch-size, default 500). Larger batches pay for
	// fewer commits but hold the log's write lock longer, and every other
	// writer waits for it. 0 means the default.
	BindBatchSize int
}

// DefaultConfig is what herd serve runs with.
func DefaultConfig() Config {
	return Config{ResyncPeriod: 30 * time.Second, BindBatchSize: 500}
}

// setDefaults fills the settings left at zero.
func (c *Config) setDefaults() {
	d := DefaultConfig()
	if c.ResyncPeriod == 0 {
		c.ResyncPeriod = d.ResyncPeriod
	}
	if c.BindBatchSize == 0 {
		c.BindBatchSize = d.BindBatchSize
	}
}

// Validate names every setting that is wrong. Zero is not wrong: it means
// the default.
func (c Config) Validate() error {
	var errs []error
	if c.ResyncPeriod < 0 {
		errs = append(errs, fmt.Errorf("--scheduler-resync-period %s: want a positive duration", c.ResyncPeriod))
	}
	if c.BindBatchSize < 0 {
		errs = append(errs, fmt.Errorf("--scheduler-bind-batch-size %d: want 1 or more", c.BindBatchSize))
	}
	return errors.Join(errs...)
}
