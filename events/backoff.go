package events

import "time"

// Backoff is the wait between tries of something that keeps failing: the
// first wait is Initial, each further failure doubles it up to Max, and a
// success starts over. A loop that retries without one spins: with a full
// disk the reconcilers' follower once retried saving its position
// 18,000 times a second, each try logged.
type Backoff struct {
	// Initial is the wait after the first failure.
	Initial time.Duration
	// Max caps the wait.
	Max time.Duration

	failures int
	wait     time.Duration
}

// Failed records a failure and returns how long to wait before the next
// try.
func (b *Backoff) Failed() time.Duration {
	b.failures++
	switch {
	case b.wait == 0:
		b.wait = b.Initial
	case b.wait < b.Max:
		b.wait = min(2*b.wait, b.Max)
	}
	return b.wait
}

// Succeeded records a success: the next failure waits Initial again.
func (b *Backoff) Succeeded() { b.failures, b.wait = 0, 0 }

// Failures is how many tries have failed in a row.
func (b *Backoff) Failures() int { return b.failures }

// Wait is the wait the last failure asked for; 0 after a success.
func (b *Backoff) Wait() time.Duration { return b.wait }
