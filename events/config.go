package events

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"
)

// Config says where the log lives and how it is read. The zero value of
// every field but Path means "use the default".
type Config struct {
	// Path is the SQLite database file. It is created if missing. ":memory:"
	// is refused: every pooled connection would get its own empty database.
	Path string

	// BusyTimeout is how long a statement waits for another connection's
	// write lock before failing with SQLITE_BUSY. Default 5s: long enough to
	// ride out a subscriber batch or a migration, short enough that a stuck
	// writer shows up as an error instead of a hang.
	BusyTimeout time.Duration

	// PollInterval is how long a subscriber waits before asking again when
	// its last query found nothing new. Default 100ms: watermill polls on the
	// wall clock, so this is the added latency of an idle reconciler.
	PollInterval time.Duration

	// FollowInterval is how long a Follower waits, when no commit is
	// announced, before reading the log anyway. Default 1s: commits made
	// through this store wake followers at once (Committed), so the timer
	// only bounds how late they see a commit they were not told of (one
	// by another process on the same file), and an idle follower costs a
	// plain indexed read a second, never the write lock.
	FollowInterval time.Duration

	// CheckTimeout is how long Open's PRAGMA quick_check of a file that
	// was already there may run. Past it the check stops, Check says it
	// was cut short, and the file is opened on the strength of what was
	// checked (its header and schema always are). Default 20s: on a disk
	// that reads 100 MB/s a 2.3 GB log took two minutes to check whole
	// (1.7 s of it CPU), and a start-up that slow is worse than the rare
	// damage past the part checked. Negative waits for the whole check.
	CheckTimeout time.Duration

	// FollowSaveInterval is how often, at most, a Follower writes its
	// position while it moves (and once more when it stops). Default 1s:
	// one small write a second while busy, none while idle; a crash
	// re-delivers at most about this long of the log, which the
	// at-least-once consumers (reconcilers resync anyway) take in stride.
	FollowSaveInterval time.Duration

	// SubscribeBatchSize is how many events a subscriber reads per query.
	// Default 100 (about 6x the throughput of batch size 1: ARCHITECTURE.md,
	// "SQLite's settings"). A crash re-delivers at most one batch.
	SubscribeBatchSize int

	// AckDeadline is how long a subscriber waits for a handler to ack an
	// event before giving up on it and re-delivering it later. Default 30s
	// (watermill's default). The subscriber holds the write lock meanwhile,
	// so handlers must ack quickly.
	AckDeadline time.Duration

	// MaxOpenConns bounds the connection pool's readers. Default
	// GOMAXPROCS, at least 4: WAL lets readers run beside the one writer.
	// A store keeps one connection more for its write transactions, so
	// that a write never waits behind readers for a connection.
	MaxOpenConns int

	// Scratch says the file is a scratch log that nothing needs after a
	// crash or a power cut (the what-if's copy, thrown away when it is
	// done): its commits are not synced to disk (synchronous=OFF), and
	// Open does not check an existing file (the process wrote it itself). A durable log never
	// sets it: an
	// acknowledged write must survive a power cut.
	Scratch bool
}

const (
	defaultBusyTimeout        = 5 * time.Second
	defaultPollInterval       = 100 * time.Millisecond
	defaultSubscribeBatchSize = 100
	defaultFollowInterval     = time.Second
	// DefaultCheckTimeout is Config.CheckTimeout's default.
	DefaultCheckTimeout       = 20 * time.Second
	defaultFollowSaveInterval = time.Second
	defaultAckDeadline        = 30 * time.Second
	minOpenConns              = 4
)

func (c *Config) setDefaults() {
	if c.BusyTimeout == 0 {
		c.BusyTimeout = defaultBusyTimeout
	}
	if c.PollInterval == 0 {
		c.PollInterval = defaultPollInterval
	}
	if c.FollowInterval == 0 {
		c.FollowInterval = defaultFollowInterval
	}
	if c.CheckTimeout == 0 {
		c.CheckTimeout = DefaultCheckTimeout
	}
	if c.FollowSaveInterval == 0 {
		c.FollowSaveInterval = defaultFollowSaveInterval
	}
	if c.SubscribeBatchSize == 0 {
		c.SubscribeBatchSize = defaultSubscribeBatchSize
	}
	if c.AckDeadline == 0 {
		c.AckDeadline = defaultAckDeadline
	}
	if c.MaxOpenConns == 0 {
		c.MaxOpenConns = max(runtime.GOMAXPROCS(0), minOpenConns)
	}
}

// Validate reports every problem with c at once, each naming its setting.
// Zero values are valid: they mean the default.
func (c Config) Validate() error {
	var errs []error
	if err := validatePath(c.Path); err != nil {
		errs = append(errs, fmt.Errorf("events: Path: %w", err))
	}
	if c.BusyTimeout < 0 {
		errs = append(errs, fmt.Errorf("events: BusyTimeout %s is negative", c.BusyTimeout))
	}
	if c.BusyTimeout%time.Millisecond != 0 {
		errs = append(errs, fmt.Errorf("events: BusyTimeout %s is not a whole number of milliseconds", c.BusyTimeout))
	}
	if c.PollInterval < 0 {
		errs = append(errs, fmt.Errorf("events: PollInterval %s is negative", c.PollInterval))
	}
	if c.FollowInterval < 0 {
		errs = append(errs, fmt.Errorf("events: FollowInterval %s is negative", c.FollowInterval))
	}
	if c.FollowSaveInterval < 0 {
		errs = append(errs, fmt.Errorf("events: FollowSaveInterval %s is negative", c.FollowSaveInterval))
	}
	if c.SubscribeBatchSize < 0 {
		errs = append(errs, fmt.Errorf("events: SubscribeBatchSize %d is negative", c.SubscribeBatchSize))
	}
	if c.AckDeadline < 0 {
		errs = append(errs, fmt.Errorf("events: AckDeadline %s is negative", c.AckDeadline))
	}
	if c.MaxOpenConns < 0 {
		errs = append(errs, fmt.Errorf("events: MaxOpenConns %d is negative", c.MaxOpenConns))
	}
	return errors.Join(errs...)
}

func validatePath(path string) error {
	switch {
	case path == "":
		return errors.New("is empty; name the database file")
	case path == ":memory:" || strings.Contains(path, "mode=memory"):
		return fmt.Errorf("%q: an in-memory database is private to one pooled connection; use a file (tests: t.TempDir())", path)
	case strings.HasPrefix(path, "file:"):
		return fmt.Errorf("%q: give a plain file path, not a URI; herd sets the connection options", path)
	case strings.ContainsAny(path, "?#"):
		return fmt.Errorf("%q: contains ? or #, which the driver would read as options", path)
	}
	return nil
}
