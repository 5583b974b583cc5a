package watch

import (
	"errors"
	"fmt"
	"time"
)

// Config tunes the hub. The zero value of every field means its default.
type Config struct {
	// CacheSize is how many recent events the hub keeps, with the objects
	// they changed, for watchers to read. It is also how far a watcher may
	// fall behind the log before it is cut off as too slow. Default 8192:
	// eight seconds of a thousand events a second, a few tens of megabytes
	// at most.
	CacheSize int

	// CacheBytes bounds the same recent events by the memory they hold:
	// when their objects add up to more, the oldest are dropped, as if
	// CacheSize were smaller. Without it a client that writes large
	// objects (a ConfigMap of a megabyte, rewritten; a node's huge status
	// reports) grows herd's memory by its object's size on every write.
	// Default 64 MiB: far above what 8,192 heartbeats hold, so CacheSize
	// decides in an ordinary fleet.
	CacheBytes int64

	// History is how long a resourceVersion stays usable: a watch or a
	// continued list may start from any log position whose next event was
	// recorded less than History ago, by herd's clock. Default 5m,
	// Kubernetes' default etcd compaction interval, after which
	// kube-apiserver answers 410 Expired too.
	History time.Duration

	// BaseInterval is how often, by herd's clock, the hub takes a base: a
	// copy of its map of objects that history (a watch resumed, a list at
	// an older resourceVersion) folds forward from. The hub keeps as many
	// as reach back History, and each holds its own version of every
	// object that changed since: with 100,000 nodes renewing their leases,
	// a version of each node and each lease per base. Default History:
	// two bases, the newest and one at least History old, and a stream's
	// history folds from at most History of its events (from at most
	// History/2 when three were kept).
	BaseInterval time.Duration

	// PollInterval is how long the hub waits, when no commit is announced,
	// before reading the log anyway. Commits made through herd's unit of
	// work wake the hub at once (events.Store.Committed), so this only
	// bounds how late a watcher sees a commit the hub was not told of (one
	// by another process on the same file). Default 1s, up from 5ms when
	// it was the whole of a watch's latency: an idle herd reads once a
	// second instead of two hundred times.
	PollInterval time.Duration

	// BookmarkInterval is how often watchers that allow bookmarks are told
	// the log position they have seen everything up to, by herd's clock.
	// Default 1m, as kube-apiserver sends them.
	BookmarkInterval time.Duration

	// BatchSize is how many events the hub, or a watcher catching up from
	// the log, reads at once. Default 1000.
	BatchSize int

	// WaitForPosition bounds how long a watch or a list waits for the hub
	// to reach a resourceVersion newer than it has seen before answering
	// "too large resource version". Default 3s, kube-apiserver's.
	WaitForPosition time.Duration
	// SnapshotEvery is after how many events of a stream the hub
	// snapshots its object into the log's database, so that its state at
	// an older position folds from at most that many events (snapshot.go).
	// Default 100; negative takes none.
	SnapshotEvery int
	// SnapshotInterval is how often, by herd's clock, the hub snapshots
	// every object that changed since its last snapshot. Default 1h.
	SnapshotInterval time.Duration
	// StartWait bounds how long Start waits, on the machine's clock, for
	// the log to show the events up to its views' position: on
	// PostgreSQL a replica may read a view that another replica's commit
	// has moved before that commit's events are visible to its log
	// reads. Past it Start fails, naming both positions. Default 10s.
	StartWait time.Duration
}

const (
	defaultCacheSize        = 8192
	defaultCacheBytes       = 64 << 20
	defaultHistory          = 5 * time.Minute
	defaultPollInterval     = time.Second
	defaultBookmarkInterval = time.Minute
	defaultBatchSize        = 1000
	defaultWaitForPosition  = 3 * time.Second
	defaultStartWait        = 10 * time.Second
)

// DefaultConfig is the configuration with every default filled in.
func DefaultConfig() Config {
	var c Config
	c.setDefaults()
	return c
}

func (c *Config) setDefaults() {
	if c.CacheSize == 0 {
		c.CacheSize = defaultCacheSize
	}
	if c.CacheBytes == 0 {
		c.CacheBytes = defaultCacheBytes
	}
	if c.History == 0 {
		c.History = defaultHistory
	}
	if c.BaseInterval == 0 && c.History > 0 {
		c.BaseInterval = c.History
	}
	if c.PollInterval == 0 {
		c.PollInterval = defaultPollInterval
	}
	if c.BookmarkInterval == 0 {
		c.BookmarkInterval = defaultBookmarkInterval
	}
	if c.BatchSize == 0 {
		c.BatchSize = defaultBatchSize
	}
	if c.WaitForPosition == 0 {
		c.WaitForPosition = defaultWaitForPosition
	}
	if c.SnapshotEvery == 0 {
		c.SnapshotEvery = defaultSnapshotEvery
	}
	if c.SnapshotInterval == 0 {
		c.SnapshotInterval = defaultSnapshotInterval
	}
	if c.StartWait == 0 {
		c.StartWait = defaultStartWait
	}
}

// Validate reports every problem with c at once, each naming its setting.
// Zero values are valid: they mean the default.
func (c Config) Validate() error {
	var errs []error
	if c.CacheSize < 0 {
		errs = append(errs, fmt.Errorf("watch: CacheSize %d is negative", c.CacheSize))
	}
	if c.CacheBytes < 0 {
		errs = append(errs, fmt.Errorf("watch: CacheBytes %d is negative", c.CacheBytes))
	}
	if c.History < 0 {
		errs = append(errs, fmt.Errorf("watch: History %s is negative", c.History))
	}
	if c.BaseInterval < 0 {
		errs = append(errs, fmt.Errorf("watch: BaseInterval %s is negative", c.BaseInterval))
	}
	if c.PollInterval < 0 {
		errs = append(errs, fmt.Errorf("watch: PollInterval %s is negative", c.PollInterval))
	}
	if c.BookmarkInterval < 0 {
		errs = append(errs, fmt.Errorf("watch: BookmarkInterval %s is negative", c.BookmarkInterval))
	}
	if c.BatchSize < 0 {
		errs = append(errs, fmt.Errorf("watch: BatchSize %d is negative", c.BatchSize))
	}
	if c.WaitForPosition < 0 {
		errs = append(errs, fmt.Errorf("watch: WaitForPosition %s is negative", c.WaitForPosition))
	}
	if c.SnapshotInterval < 0 {
		errs = append(errs, fmt.Errorf("watch: SnapshotInterval %s is negative", c.SnapshotInterval))
	}
	if c.StartWait < 0 {
		errs = append(errs, fmt.Errorf("watch: StartWait %s is negative", c.StartWait))
	}
	return errors.Join(errs...)
}
