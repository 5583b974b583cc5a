package watch

import (
	"errors"
	"fmt"
	"time"
)

var (
	// ErrExpired is matched by an *ExpiredError: the resourceVersion is
	// older than the history herd keeps.
	ErrExpired = errors.New("resourceVersion expired")
	// ErrTooLarge is matched by a *TooLargeError: the resourceVersion is
	// newer than anything herd has seen.
	ErrTooLarge = errors.New("resourceVersion too large")
	// ErrTooSlow is matched by a *TooSlowError: the watcher fell further
	// behind the log than the hub keeps and was cut off.
	ErrTooSlow = errors.New("watcher too slow")
	// ErrClosed is returned once the hub has stopped.
	ErrClosed = errors.New("watch: the hub has stopped")
	// ErrUnknownResource is returned for a resource no Kind registered.
	ErrUnknownResource = errors.New("watch: unknown resource")
	// ErrNotStarted is returned by a hub that has not started yet.
	ErrNotStarted = errors.New("watch: the hub has not started")
)

// ExpiredError says a resourceVersion is older than the history kept.
type ExpiredError struct {
	// Position is the resourceVersion asked for.
	Position int64
	// History is how much history herd keeps.
	History time.Duration
	// CompactedThrough is the log's compaction point when the position
	// is older than it, else 0.
	CompactedThrough int64
}

func (e *ExpiredError) Error() string {
	if e.CompactedThrough > 0 {
		return fmt.Sprintf("too old resource version: %d (%d): the log's old heartbeats were compacted through %d; list again for a current one",
			e.Position, e.CompactedThrough, e.CompactedThrough)
	}
	return fmt.Sprintf("too old resource version: %d (herd keeps %s of history; list again for a current one)", e.Position, e.History)
}

// Is makes errors.Is(err, ErrExpired) hold.
func (e *ExpiredError) Is(target error) bool { return target == ErrExpired }

// TooLargeError says a resourceVersion is newer than the log's head.
type TooLargeError struct {
	// Position is the resourceVersion asked for.
	Position int64
	// Current is the newest position herd knows.
	Current int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("Too large resource version: %d, current: %d", e.Position, e.Current)
}

// Is makes errors.Is(err, ErrTooLarge) hold.
func (e *TooLargeError) Is(target error) bool { return target == ErrTooLarge }

// TooSlowError says a watcher was cut off for falling behind.
type TooSlowError struct {
	// Resource is what the watcher watched.
	Resource string
	// Position is how far the watcher had got: it may resume from there.
	Position int64
	// Behind is how many events the hub keeps (at most CacheSize, fewer
	// when CacheBytes binds), all of which the watcher had yet to read.
	Behind int
}

func (e *TooSlowError) Error() string {
	return fmt.Sprintf("the watch of %s was too slow: it fell more than %d events behind the log and was cut off; resume from resourceVersion %d or list again",
		e.Resource, e.Behind, e.Position)
}

// Is makes errors.Is(err, ErrTooSlow) hold.
func (e *TooSlowError) Is(target error) bool { return target == ErrTooSlow }
