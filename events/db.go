package events

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"strconv"

	// The cgo SQLite driver, registered as "sqlite3".
	_ "github.com/mattn/go-sqlite3"
)

// stmtCacheSize is how many prepared statements each connection keeps. The
// hot path uses a handful (one insert per batch size in use, the stream
// version probe, last_insert_rowid, the subscriber's select and ack), and
// re-preparing the insert costs about as much as running it: every index
// of the table is compiled into it.
const stmtCacheSize = 64

// OpenDB opens the SQLite file at path with herd's connection settings.
// Only BusyTimeout and MaxOpenConns are taken from cfg (zero means the
// default); cfg.Path is ignored in favour of path. It does not migrate; see
// Open. ctx bounds the first connection.
func OpenDB(ctx context.Context, path string, cfg Config) (*sql.DB, error) {
	cfg.Path = path
	cfg.setDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	driver := "sqlite3"
	if cfg.Scratch {
		driver = scratchDriver
	}
	db, err := sql.Open(driver, dsn(path, cfg))
	if err != nil {
		return nil, fmt.Errorf("events: open %s: %w", path, err)
	}
	// Connections are cheap to keep and dear to open (each re-reads the
	// schema and runs the pragmas), so keep every one of them.
	db.SetMaxOpenConns(cfg.MaxOpenConns)
	db.SetMaxIdleConns(cfg.MaxOpenConns)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close() // the open failed; that error is the one returned
		return nil, fmt.Errorf("events: open %s: %w", path, err)
	}
	return db, nil
}

// scratchPragmas are a scratch log's settings, on each of its
// connections, beyond its DSN's: a checkpoint every 10,000 pages of WAL
// (~40 MB) instead of every 1,000 pages, so that a page the simulation
// rewrites at every commit (an index's root, the views' hot rows) is
// copied into the database file a tenth as often; the file read through
// a memory map, not a pread per page; sorts and statement journals in
// memory.
const scratchPragmas = `PRAGMA wal_autocheckpoint = 10000; PRAGMA mmap_size = 1073741824; PRAGMA temp_store = MEMORY;`

// dsn is path plus mattn/go-sqlite3's options; the driver applies them to
// every connection it opens.
func dsn(path string, cfg Config) string {
	q := url.Values{}
	// WAL: readers never block the writer and the writer never blocks
	// readers, so views and API reads go on while events are appended.
	q.Set("_journal_mode", "WAL")
	// FULL in WAL mode fsyncs the WAL at every commit, so an acknowledged
	// write survives a power cut, not only a crash of herd (NORMAL syncs at
	// checkpoints only, and a power cut could roll back the last commits:
	// an IP address or a binding already acknowledged could be handed out
	// again). This is etcd's promise too. It is affordable because writes
	// are group-committed: one fsync per group of commands, not per request.
	q.Set("_synchronous", "FULL")
	if cfg.Scratch {
		// A scratch log is thrown away after a crash: an fsync per
		// commit would be the whole cost of writing it.
		q.Set("_synchronous", "OFF")
	}
	// Projections reference their own tables; SQLite only enforces foreign
	// keys when asked, per connection.
	q.Set("_foreign_keys", "1")
	// Every transaction takes the write lock at BEGIN. With "deferred", a
	// read-then-write transaction upgrades its lock at the first write, and
	// that upgrade fails with SQLITE_BUSY at once, bypassing the busy
	// handler; the watermill subscriber under concurrent publishers
	// livelocked or delivered duplicates (ARCHITECTURE.md, "SQLite's settings"). Plain reads outside a
	// transaction take no write lock and are unaffected.
	q.Set("_txlock", "immediate")
	// Wait this long for the write lock instead of failing at once.
	q.Set("_busy_timeout", strconv.FormatInt(cfg.BusyTimeout.Milliseconds(), 10))
	// Reuse prepared statements per connection (see stmtCacheSize).
	q.Set("_stmt_cache_size", strconv.Itoa(stmtCacheSize))
	return path + "?" + q.Encode()
}
