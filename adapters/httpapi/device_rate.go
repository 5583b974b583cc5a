package httpapi

import (
	"fmt"
	"math"
	"net/netip"
	"sync"
	"time"

	"golang.org/x/time/rate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/utils/clock"
)

// Defaults of the device listener's rate per source address. A Pico sends
// three requests when it boots (POST, the PATCH after a 409, its
// ConfigMap) and then one every 10 s and one every 30 s: a burst of 20
// lets a handful of boards behind one address boot together, and one a
// second carries dozens of them, while one address can no longer
// register thousands of nodes in seconds.
const (
	DefaultDeviceRate  = 1.0
	DefaultDeviceBurst = 20
)

// sourceLimiter is a token bucket per source address, on herd's clock so
// that tests move time instead of waiting for it.
type sourceLimiter struct {
	limit rate.Limit
	burst int
	clock clock.PassiveClock

	mu sync.Mutex
	by map[netip.Addr]*rate.Limiter
	// sweepAt is the size of by at which idle buckets are dropped next.
	sweepAt int
}

// minSweep is the number of addresses tracked before the first sweep.
const minSweep = 1024

func newSourceLimiter(perSecond float64, burst int, clk clock.PassiveClock) *sourceLimiter {
	return &sourceLimiter{limit: rate.Limit(perSecond), burst: burst, clock: clk, by: map[netip.Addr]*rate.Limiter{}, sweepAt: minSweep}
}

// admit takes one token of addr's bucket, or answers 429 TooManyRequests
// with the seconds until one is there as Retry-After.
func (l *sourceLimiter) admit(addr netip.Addr) error {
	now := l.clock.Now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.by[addr]
	if !ok {
		l.sweep(now)
		b = rate.NewLimiter(l.limit, l.burst)
		l.by[addr] = b
	}
	r := b.ReserveN(now, 1)
	if !r.OK() {
		return l.refusal(addr, time.Second)
	}
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return l.refusal(addr, wait)
	}
	return nil
}

// refusal is the 429 for addr, which may try again after wait.
func (l *sourceLimiter) refusal(addr netip.Addr, wait time.Duration) error {
	secs := int(math.Ceil(wait.Seconds()))
	return apierrors.NewTooManyRequests(fmt.Sprintf(
		"too many requests from %s: the device listener takes %g a second from one address (bursts of %d)",
		addr, float64(l.limit), l.burst), max(secs, 1))
}

// sweep drops the buckets that are full again: a full bucket is what a
// new address gets, so dropping it changes no answer, and the map stays
// the size of the addresses that spoke lately.
func (l *sourceLimiter) sweep(now time.Time) {
	if len(l.by) < l.sweepAt {
		return
	}
	for a, b := range l.by {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.by, a)
		}
	}
	l.sweepAt = max(2*len(l.by), minSweep)
}
