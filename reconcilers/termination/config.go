package termination

import (
	"errors"
	"fmt"
	"time"
)

// Config holds the termination reconciler's timings.
type Config struct {
	// PodGCTimeout is how long past a pod's deletion deadline herd waits
	// for an unreachable node to come back before it finalizes the pod
	// anyway (--pod-gc-timeout, default 60s). It is counted from the
	// deadline or from when the node stopped being Ready, whichever is
	// later, so a node that drops out late still gets the whole timeout.
	PodGCTimeout time.Duration
	// PollPeriod is how often a pod that was asked to shut down is checked
	// on its runtime until it stops or its deadline comes (default 1s).
	PollPeriod time.Duration
	// ResyncPeriod is how often every terminating pod, and every pod
	// bound to a node that no longer exists, is looked at again without
	// an event (default 30s).
	ResyncPeriod time.Duration
}

// DefaultConfig is what herd runs with unless told otherwise.
func DefaultConfig() Config {
	return Config{PodGCTimeout: 60 * time.Second, PollPeriod: time.Second, ResyncPeriod: 30 * time.Second}
}

// Validate names every setting that is wrong.
func (c Config) Validate() error {
	var errs []error
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{
		{"--pod-gc-timeout", c.PodGCTimeout},
		{"termination poll period", c.PollPeriod},
		{"termination resync period", c.ResyncPeriod},
	} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s %s: want a positive duration", d.flag, d.v))
		}
	}
	return errors.Join(errs...)
}
