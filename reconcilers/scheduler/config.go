package scheduler

import (
	"errors"
	"fmt"
	"slices"
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
	// InitialBackoff is how long a pod that fit nowhere waits before it is
	// tried again without a change in the fleet (default 1s, the
	// Kubernetes scheduler's podInitialBackoffSeconds). Each further
	// failure doubles the wait. 0 means the default.
	InitialBackoff time.Duration
	// MaxBackoff caps that wait (default 10s, the Kubernetes scheduler's
	// podMaxBackoffSeconds). 0 means the default.
	MaxBackoff time.Duration
	// ScoringStrategy is how the NodeResourcesFit score ranks the nodes
	// a pod fits on (--scheduler-scoring-strategy): LeastAllocated, the
	// Kubernetes scheduler's default, spreads pods to the emptiest;
	// MostAllocated packs them onto the fullest, leaving whole nodes
	// free; RequestedToCapacityRatio scores by Shape. Empty means the
	// default.
	ScoringStrategy string
	// Shape is RequestedToCapacityRatio's scoring function
	// (--scheduler-scoring-shape): a node's score for each share of its
	// CPU and memory requested once the pod is on it, drawn as straight
	// lines between the points. RequestedToCapacityRatio needs one, as
	// the Kubernetes scheduler's does; the other strategies leave it
	// aside.
	Shape Shape
}

// The scoring strategies, as KubeSchedulerConfiguration's
// NodeResourcesFitArgs name them.
const (
	LeastAllocated           = "LeastAllocated"
	MostAllocated            = "MostAllocated"
	RequestedToCapacityRatio = "RequestedToCapacityRatio"
)

// ScoringStrategies are the strategies herd offers, in the order it
// names them.
var ScoringStrategies = []string{LeastAllocated, MostAllocated, RequestedToCapacityRatio}

// DefaultConfig is what herd serve runs with.
func DefaultConfig() Config {
	return Config{ResyncPeriod: 30 * time.Second, BindBatchSize: 500, InitialBackoff: time.Second, MaxBackoff: 10 * time.Second,
		ScoringStrategy: LeastAllocated}
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
	if c.InitialBackoff == 0 {
		c.InitialBackoff = d.InitialBackoff
	}
	if c.MaxBackoff == 0 {
		c.MaxBackoff = max(d.MaxBackoff, c.InitialBackoff)
	}
	if c.ScoringStrategy == "" {
		c.ScoringStrategy = d.ScoringStrategy
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
	if c.InitialBackoff < 0 {
		errs = append(errs, fmt.Errorf("--scheduler-initial-backoff %s: want a positive duration", c.InitialBackoff))
	}
	if c.MaxBackoff < 0 {
		errs = append(errs, fmt.Errorf("--scheduler-max-backoff %s: want a positive duration", c.MaxBackoff))
	}
	if err := c.ScoringStrategyError(); err != nil {
		errs = append(errs, err)
	}
	if err := c.ShapeError(); err != nil {
		errs = append(errs, err)
	}
	if c.InitialBackoff > 0 && c.MaxBackoff > 0 && c.MaxBackoff < c.InitialBackoff {
		errs = append(errs, fmt.Errorf("--scheduler-max-backoff %s is shorter than --scheduler-initial-backoff %s", c.MaxBackoff, c.InitialBackoff))
	}
	return errors.Join(errs...)
}

// ScoringStrategyError says what is wrong with the scoring strategy, if
// anything.
func (c Config) ScoringStrategyError() error {
	if c.ScoringStrategy == "" || slices.Contains(ScoringStrategies, c.ScoringStrategy) {
		return nil
	}
	return fmt.Errorf("--scheduler-scoring-strategy %q: want %s, %s or %s", c.ScoringStrategy, LeastAllocated, MostAllocated, RequestedToCapacityRatio)
}

// ShapeError says what is wrong with the scoring shape, if anything:
// RequestedToCapacityRatio needs one.
func (c Config) ShapeError() error {
	if c.ScoringStrategy == RequestedToCapacityRatio && len(c.Shape) == 0 {
		return fmt.Errorf("--scheduler-scoring-strategy %s needs --scheduler-scoring-shape: UTILIZATION=SCORE points, scores 0 to %d (0=0,100=%d packs pods onto the fullest node)",
			RequestedToCapacityRatio, MaxShapeScore, MaxShapeScore)
	}
	return c.Shape.Check()
}
