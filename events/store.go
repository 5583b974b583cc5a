package events

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ThreeDotsLabs/watermill"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migrations are the events package's schema files, applied by Open under
// the component name "events".
func Migrations() fs.FS {
	sub, err := fs.Sub(migrationFiles, "migrations")
	if err != nil {
		panic(err) // the directory is embedded; this cannot fail
	}
	return sub
}

// Store is herd's event log on one SQLite file. It is safe for concurrent
// use. Writes go through the caller's transactions (see Append); reads take
// any Querier.
type Store struct {
	db      *sql.DB
	cfg     Config
	logger  watermill.LoggerAdapter
	schema  schemaAdapter
	offsets offsetsAdapter
	check   Check

	mu            sync.Mutex
	closed        bool
	subscriptions []subscription

	commits    commits
	compaction compaction
	writes     writeHealth
	// shared is the window of recent reads the log's readers share, once
	// ShareReads turns it on.
	shared atomic.Pointer[recentReads]
	// inserts are the prepared INSERTs of AppendPrepared.
	inserts insertStmts
	// writer is the connection kept for the log's write transactions.
	writer writeConn
}

// subscription is a subscriber (watermill-sql's, or a Follower) the store
// closes on Close. If stop is set, an AfterFunc of the subscriber's
// context closes it too and closes done when it has.
type subscription struct {
	sub  interface{ Close() error }
	stop func() bool
	done chan struct{}
}

// Open opens (creating if need be) the log at cfg.Path and brings its
// schema up to date. A file that was already there is checked first, and
// refused with a *DamagedError when it is empty, not SQLite, damaged, not
// herd's, or a newer herd's. A nil logger logs nothing.
func Open(ctx context.Context, cfg Config, logger watermill.LoggerAdapter) (*Store, error) {
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if logger == nil {
		logger = watermill.NopLogger{}
	}
	existing, err := existingFile(cfg.Path)
	if err != nil {
		return nil, err
	}
	var check Check
	// A scratch file is this process's own copy, written moments ago;
	// checking it again would cost a read of the whole file per open.
	if existing && !cfg.Scratch {
		if check, err = checkExisting(ctx, cfg.Path, cfg.CheckTimeout); err != nil {
			return nil, err
		}
	}
	db, err := OpenDB(ctx, cfg.Path, cfg)
	if err != nil {
		if existing && damaged(err) {
			return nil, &DamagedError{Path: cfg.Path, Kind: DamageCorrupt, Problem: "is damaged: SQLite cannot open it: " + errors.Unwrap(err).Error()}
		}
		return nil, err
	}
	if err := Migrate(ctx, db, "events", Migrations()); err != nil {
		_ = db.Close() // the open failed; that error is the one returned
		return nil, fmt.Errorf("events: open %s: %w", cfg.Path, err)
	}
	s := &Store{
		db:     db,
		cfg:    cfg,
		logger: logger,
		schema: newSchemaAdapter(cfg.SubscribeBatchSize),
		writes: writeHealth{probe: Backoff{Initial: time.Second, Max: 30 * time.Second}},
		check:  check,
	}
	// The commit signal starts at the head as found, so that the head it
	// reports (lag, for one) is right before herd's first commit too.
	head, err := s.Head(ctx, db)
	if err != nil {
		_ = db.Close() // the open failed; that error is the one returned
		return nil, fmt.Errorf("events: open %s: %w", cfg.Path, err)
	}
	s.commits.head = head
	if err := s.loadCompaction(ctx); err != nil {
		_ = db.Close() // the open failed; that error is the one returned
		return nil, fmt.Errorf("events: open %s: %w", cfg.Path, err)
	}
	// One connection more than cfg.MaxOpenConns, kept for writes, taken
	// now, before anyone reads (see writeConn).
	db.SetMaxOpenConns(cfg.MaxOpenConns + 1)
	db.SetMaxIdleConns(cfg.MaxOpenConns + 1)
	if err := s.writer.reserve(ctx, db, cfg.BusyTimeout); err != nil {
		_ = db.Close() // the open failed; that error is the one returned
		return nil, fmt.Errorf("events: open %s: %w", cfg.Path, err)
	}
	return s, nil
}

// Check is what Open found when it checked the file: nothing for a new
// one, and whether the check of an existing one was whole.
func (s *Store) Check() Check { return s.check }

// DB is the store's connection pool, for the units of work that append
// events and update views in one transaction.
func (s *Store) DB() *sql.DB { return s.db }

// Close stops every subscriber the store made (each acks what its handler
// acked before stopping), then closes the database. Closing twice is fine.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	subscriptions := s.subscriptions
	s.subscriptions = nil
	s.mu.Unlock()

	var errs []error
	for _, sn := range subscriptions {
		if sn.stop != nil && !sn.stop() {
			// The context ended first and its AfterFunc is closing the
			// subscriber; a second Close would return before it is done.
			<-sn.done
			continue
		}
		if err := sn.sub.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := s.writer.close(); err != nil {
		errs = append(errs, err)
	}
	if err := s.db.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// track registers a subscription to be closed by Close.
func (s *Store) track(sn subscription) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errStoreClosed
	}
	s.subscriptions = append(s.subscriptions, sn)
	return nil
}

var errStoreClosed = errors.New("events: store is closed")
