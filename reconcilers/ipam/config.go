package ipam

import (
	"errors"
	"fmt"
	"time"

	"herd/domain"
)

// Config says where pod addresses come from.
type Config struct {
	// Pools are the CIDRs pods get addresses from, tried in this order
	// (--pod-cidr, repeatable). Each is IPv4, /30 or larger; pools may not
	// overlap.
	Pools []string
	// ResyncPeriod is how often every waiting pod and every allocation
	// are checked even without an event, so that a crash between an
	// allocation and its pod heals itself (default 30s).
	ResyncPeriod time.Duration
}

// DefaultConfig hands out 10.88.0.0/16, the range container runtimes
// commonly use for their own bridge networks.
func DefaultConfig() Config {
	return Config{Pools: []string{"10.88.0.0/16"}, ResyncPeriod: 30 * time.Second}
}

// Validate names every setting that is wrong, and returns the pools
// parsed.
func (c Config) Validate() ([]domain.PoolNetwork, error) {
	var (
		errs  []error
		pools []domain.PoolNetwork
	)
	if len(c.Pools) == 0 {
		errs = append(errs, errors.New("--pod-cidr: want at least one pool, such as 10.88.0.0/16"))
	}
	for _, cidr := range c.Pools {
		n, err := domain.ParseIPPool(cidr)
		if err != nil {
			errs = append(errs, fmt.Errorf("--pod-cidr: %w", err))
			continue
		}
		for _, o := range pools {
			if o.Prefix.Overlaps(n.Prefix) {
				errs = append(errs, fmt.Errorf("--pod-cidr %s overlaps %s: two pools could hand out one address", n.Prefix, o.Prefix))
			}
		}
		pools = append(pools, n)
	}
	if c.ResyncPeriod <= 0 {
		errs = append(errs, fmt.Errorf("--ipam-resync-period %s: want a positive duration", c.ResyncPeriod))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return pools, nil
}
