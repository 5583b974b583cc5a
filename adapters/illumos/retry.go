package illumos

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"k8s.io/utils/clock"
)

// Retry is how a host command that failed transiently is tried again.
type Retry struct {
	// Attempts is how many times a command is run in all before its
	// failure stands (default 5; 1 turns retrying off).
	Attempts int
	// Backoff is the wait before the second attempt; each further wait
	// doubles it, up to MaxBackoff or Backoff, whichever is longer
	// (defaults 500ms and 8s: five attempts
	// wait 0.5+1+2+4 = 7.5 s in all, longer than the few seconds another
	// zoneadm or a zfs holding a dataset usually keeps its lock).
	Backoff    time.Duration
	MaxBackoff time.Duration
}

// DefaultRetry is five attempts, backing off from half a second.
func DefaultRetry() Retry {
	return Retry{Attempts: 5, Backoff: 500 * time.Millisecond, MaxBackoff: 8 * time.Second}
}

// transientMessages are what the illumos tools say when a resource is
// busy or locked for a moment, lower-cased. A command that fails so
// changed nothing and may well succeed once the other holder lets go:
//
//   - zoneadm: "another zoneadm may have an operation in progress." — the
//     zone's lock file is held by another zoneadm (zoneadm.c,
//     grab_lock_file);
//   - zfs: "dataset is busy", "pool is busy" (EZFS_BUSY), and strerror's
//     "Device busy" (EBUSY), e.g. a destroy while a mount is in use;
//   - dladm: "object busy" and "link busy" (DLADM_STATUS_BUSY,
//     DLADM_STATUS_LINKBUSY), e.g. a VNIC still held by a zone halting;
//   - any of them: "Resource temporarily unavailable" (EAGAIN) and "try
//     again".
//
// Nothing else is retried: a missing pool, a bad name or a refused
// configuration fails the same way every time, and retrying it would
// only hold back the pod's failure.
var transientMessages = []string{
	"may have an operation in progress",
	"is busy",
	"device busy",
	"object busy",
	"link busy",
	"temporarily unavailable",
	"try again",
}

// IsTransient reports whether err is a command's failure that trying again
// may cure: it ran, exited non-zero and said a resource was busy or
// locked (see transientMessages).
func IsTransient(err error) bool {
	var ee *ExitError
	if !errors.As(err, &ee) {
		return false
	}
	msg := strings.ToLower(ee.Stderr)
	for _, m := range transientMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// RetryingRunner runs commands through Runner, trying a transient failure
// again after a backoff measured on Clock, up to Retry.Attempts in all.
// The last failure is returned as the command gave it, so that the pod's
// failure carries the command's own message.
type RetryingRunner struct {
	Runner Runner
	Clock  clock.Clock
	Retry  Retry
	// OnRetry, when set, hears of each failure that will be tried again
	// (for a log line and a metric).
	OnRetry func(c Command, attempt int, wait time.Duration, err error)
}

var _ Runner = (*RetryingRunner)(nil)

// Run implements Runner.
func (r *RetryingRunner) Run(ctx context.Context, c Command) ([]byte, error) {
	wait := r.Retry.Backoff
	for attempt := 1; ; attempt++ {
		out, err := r.Runner.Run(ctx, c)
		if err == nil || !IsTransient(err) || attempt >= r.Retry.Attempts {
			if err != nil && attempt > 1 {
				err = fmt.Errorf("%w (gave up after %d attempts)", err, attempt)
			}
			return out, err
		}
		if r.OnRetry != nil {
			r.OnRetry(c, attempt, wait, err)
		}
		select {
		case <-ctx.Done():
			return out, err
		case <-r.Clock.After(wait):
		}
		wait = min(2*wait, max(r.Retry.MaxBackoff, r.Retry.Backoff))
	}
}

// Validate names what is wrong with the retry settings.
func (r Retry) Validate() error {
	var errs []error
	if r.Attempts < 1 {
		errs = append(errs, fmt.Errorf("--command-attempts %d: want 1 or more", r.Attempts))
	}
	if r.Backoff <= 0 {
		errs = append(errs, fmt.Errorf("--command-backoff %s: want a positive duration", r.Backoff))
	}
	return errors.Join(errs...)
}
