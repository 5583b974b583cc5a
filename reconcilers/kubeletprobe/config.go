package kubeletprobe

import (
	"errors"
	"fmt"
	"net/netip"
	"slices"
	"time"

	"herd/domain"
)

// Config says which nodes are probed and how often.
type Config struct {
	// Kinds are the node kinds whose kubelet endpoint herd probes
	// (--kubelet-probe-kinds). The default is rp2040: a Pico serves
	// /healthz on its port 10250 and cannot tell herd anything when its
	// network stack hangs while its status loop does not.
	Kinds []domain.NodeKind
	// Interval is the time between two probes of one node
	// (--kubelet-probe-interval, default 15s).
	Interval time.Duration
	// Timeout bounds one probe (--kubelet-probe-timeout, default 2s): a
	// Pico answers within milliseconds or not at all.
	Timeout time.Duration
	// Networks are the networks herd may probe (--kubelet-probe-networks):
	// a node whose InternalIP is in none of them is not probed. The
	// address is the node's own report — a Pico's comes through the
	// device listener, without credentials — so herd sends requests only
	// where an administrator said its fleet lives, never wherever a node
	// points it. The default is none: nothing is probed until an
	// administrator names the fleet's networks.
	Networks []netip.Prefix
}

// DefaultConfig probes rp2040 nodes every 15 seconds with a 2 second
// timeout.
func DefaultConfig() Config {
	return Config{Kinds: []domain.NodeKind{domain.KindRP2040}, Interval: 15 * time.Second, Timeout: 2 * time.Second}
}

// Validate names every setting that is wrong.
func (c Config) Validate() error {
	var errs []error
	for _, k := range c.Kinds {
		if !slices.Contains(domain.Kinds, k) {
			errs = append(errs, fmt.Errorf("--kubelet-probe-kinds %q: want one of %v", k, domain.Kinds))
		}
	}
	if c.Interval <= 0 {
		errs = append(errs, fmt.Errorf("--kubelet-probe-interval %s: want a positive duration", c.Interval))
	}
	if c.Timeout <= 0 {
		errs = append(errs, fmt.Errorf("--kubelet-probe-timeout %s: want a positive duration", c.Timeout))
	}
	if c.Interval > 0 && c.Timeout >= c.Interval {
		errs = append(errs, fmt.Errorf("--kubelet-probe-timeout %s must be shorter than --kubelet-probe-interval %s", c.Timeout, c.Interval))
	}
	return errors.Join(errs...)
}
