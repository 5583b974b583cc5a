package kubelet

import "time"

// backoff is how long a poller waits after its failures-th failure in a
// row: base doubling with every failure, capped at most, then spread by
// ±20% with jitter (in [0, 1)) so that kubelets that failed together (a
// rack losing power) are not all polled again in the same instant.
func backoff(base, most time.Duration, failures int, jitter float64) time.Duration {
	d := base
	for i := 1; i < failures && d < most; i++ {
		d *= 2
	}
	d = min(d, most)
	return time.Duration(float64(d) * (0.8 + 0.4*jitter))
}
