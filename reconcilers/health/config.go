package health

import (
	"errors"
	"fmt"
	"math"
	"time"

	"herd/domain"
)

// Config holds the health rules' timings, under the names and with the
// defaults of kube-controller-manager's flags.
type Config struct {
	// MonitorPeriod is how often every node's deadline is checked
	// (--node-monitor-period, default 5s).
	MonitorPeriod time.Duration
	// GracePeriod is how long a node may stay silent before its
	// conditions go Unknown (--node-monitor-grace-period, default 40s).
	GracePeriod time.Duration
	// StartupGracePeriod is how long a node that never reported may take
	// to send its first heartbeat (--node-startup-grace-period, default 60s).
	StartupGracePeriod time.Duration
	// FullResyncPeriod is how often every node's taints are checked
	// against its conditions even without an event (default 30s), so that
	// a crash between a condition change and its taint heals itself.
	FullResyncPeriod time.Duration
	// UnhealthyThreshold is the share of the fleet unreachable, three
	// nodes or more, at which herd suspects it is cut off itself and
	// withholds or slows NoExecute taints (--unhealthy-fleet-threshold, default 0.55:
	// Kubernetes' --unhealthy-zone-threshold, with the fleet as the zone).
	UnhealthyThreshold float64
	// EvictionRate is how many nodes a second get the NoExecute taint
	// their Ready condition calls for, first come first served
	// (--node-eviction-rate); 0, herd's default, taints every node at
	// once. Kubernetes' default is 0.1.
	EvictionRate float64
	// SecondaryEvictionRate is the rate NoExecute taints go on at while
	// the fleet is disrupted but some of it is reachable, in a fleet of
	// more than LargeFleetThreshold nodes (--secondary-node-eviction-rate,
	// Kubernetes' flag and default 0.01: one node every 100 s); 0
	// withholds them, as in a smaller fleet.
	SecondaryEvictionRate float64
	// LargeFleetThreshold is the fleet size above which a disruption
	// slows NoExecute taints to the secondary rate rather than
	// withholding them (--large-fleet-size-threshold: Kubernetes'
	// --large-cluster-size-threshold and its default 50).
	LargeFleetThreshold int
}

// Kubernetes' defaults for the pace of NoExecute taints during a partial
// disruption of a large fleet.
const (
	DefaultSecondaryEvictionRate = 0.01
	DefaultLargeFleetThreshold   = 50
)

// DefaultConfig is Kubernetes' defaults.
func DefaultConfig() Config {
	return Config{
		MonitorPeriod:      5 * time.Second,
		GracePeriod:        40 * time.Second,
		StartupGracePeriod: 60 * time.Second,
		FullResyncPeriod:   30 * time.Second,
		UnhealthyThreshold: domain.DefaultUnhealthyThreshold,

		SecondaryEvictionRate: DefaultSecondaryEvictionRate,
		LargeFleetThreshold:   DefaultLargeFleetThreshold,
	}
}

// Validate names every setting that is wrong.
func (c Config) Validate() error {
	var errs []error
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{
		{"--node-monitor-period", c.MonitorPeriod},
		{"--node-monitor-grace-period", c.GracePeriod},
		{"--node-startup-grace-period", c.StartupGracePeriod},
		{"--health-full-resync-period", c.FullResyncPeriod},
	} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s %s: want a positive duration", d.flag, d.v))
		}
	}
	errs = append(errs, CheckEvictionRate(c.EvictionRate), CheckSecondaryEvictionRate(c.SecondaryEvictionRate),
		CheckUnhealthyThreshold(c.UnhealthyThreshold), CheckLargeFleetThreshold(float64(c.LargeFleetThreshold)))
	if c.MonitorPeriod > 0 && c.GracePeriod > 0 && c.GracePeriod <= c.MonitorPeriod {
		errs = append(errs, fmt.Errorf("--node-monitor-grace-period %s must be longer than --node-monitor-period %s, or a single late check marks healthy nodes", c.GracePeriod, c.MonitorPeriod))
	}
	return errors.Join(errs...)
}

// CheckEvictionRate says what is wrong with an eviction rate, if
// anything.
func CheckEvictionRate(v float64) error {
	return checkRate("--node-eviction-rate", v, "0: no limit")
}

// CheckSecondaryEvictionRate says what is wrong with a secondary
// eviction rate, if anything.
func CheckSecondaryEvictionRate(v float64) error {
	return checkRate("--secondary-node-eviction-rate", v, "0: none during a disruption")
}

func checkRate(flag string, v float64, zero string) error {
	if v >= 0 && !math.IsInf(v, 0) {
		return nil
	}
	return fmt.Errorf("%s %v: want nodes a second, 0 or more (%s)", flag, v, zero)
}

// CheckLargeFleetThreshold says what is wrong with a large fleet's size,
// if anything: it is a whole number of nodes, 0 or more.
func CheckLargeFleetThreshold(v float64) error {
	if v >= 0 && v <= math.MaxInt32 && v == math.Trunc(v) {
		return nil
	}
	return fmt.Errorf("--large-fleet-size-threshold %v: want a whole number of nodes, 0 or more", v)
}

// CheckUnhealthyThreshold says what is wrong with an unhealthy fleet
// threshold, if anything.
func CheckUnhealthyThreshold(v float64) error {
	if v > 0 && v <= 1 {
		return nil
	}
	return fmt.Errorf("--unhealthy-fleet-threshold %v: want a share of the fleet above 0 and at most 1 (0.55 is 55%%)", v)
}
