package events

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Postgres is the log kept in PostgreSQL, which any number of herd
// processes share. Its writers take their positions from a sequence,
// which no writer holds, so the replicas append side by side; its readers
// read no further than the newest position every earlier append has
// decided (the rule is in the architecture note and migration 0007), so a
// reader that has seen one position has seen every one before it that
// ever commits. Its followers learn of commits through LISTEN/NOTIFY,
// from this process and every other.
//
// It speaks to PostgreSQL through pgx's database/sql driver, so that the
// views write in an appending transaction as they do on SQLite (a
// *sql.Tx, SQLTx), and listens for commits on a pgx connection of its
// own.
//
// It is herd's own adapter rather than watermill-sql's PostgreSQL one:
// the log's positions, optimistic concurrency per stream and reads at a
// position are herd's contract (eventstest), and watermill-sql's schema
// (a JSON payload column, its own offsets table) would neither keep an
// event's bytes as they were given nor let views join the log in one
// transaction.
type Postgres struct {
	db      *sql.DB
	commits commits
	// compaction is this replica's copy of the log_compaction row
	// (postgres_compaction.go).
	compaction compaction
	// connConfig is what the connections of its own (listening, leading)
	// are made from.
	connConfig *pgx.ConnConfig

	stopListening context.CancelFunc
	listening     sync.WaitGroup

	// mu guards closed, followers and leaderships: the followers made of
	// this log (NewFollower), which Close closes first, and the
	// leaderships (Leadership), whose terms it ends next.
	mu          sync.Mutex
	closed      bool
	followers   []*Follower
	leaderships []*postgresLeadership

	// published is the newest head this replica kept in log_horizon.
	published atomic.Int64

	// shared is the window of recent reads this replica's readers share,
	// once ShareReads turns it on.
	shared atomic.Pointer[recentReads]
}

var _ Log = (*Postgres)(nil)

//go:embed postgres_migrations/*.sql
var postgresMigrationFiles embed.FS

// PostgresMigrations are the log's schema migrations for PostgreSQL.
func PostgresMigrations() fs.FS {
	sub, err := fs.Sub(postgresMigrationFiles, "postgres_migrations")
	if err != nil {
		panic(err) // the embedded directory exists: a build error otherwise
	}
	return sub
}

// maxPostgresConns bounds one herd's connections to PostgreSQL, as
// pgxpool's default does (4 on this 2-core machine). herd's writes are
// group-committed, one transaction at a time per replica; the rest
// serve reads.
const maxPostgresConns = 4

// OpenPostgres connects to the database at url (libpq's URL or key=value
// form: several hosts, target_session_attrs, sslmode and a password from
// PGPASSWORD or a password file all work as in psql), brings the log's
// schema up to date and starts listening for commits.
func OpenPostgres(ctx context.Context, url string) (*Postgres, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	// herd's queries are short lookups by index; PostgreSQL's JIT
	// compiles a query whose estimated cost is high, which a recursive
	// query's estimates always are (what an event led to: 0.1 s of
	// lookups, 0.8 s of compiling). An operator who wants it sets jit
	// in the URL's options.
	if _, set := cfg.RuntimeParams["jit"]; !set {
		cfg.RuntimeParams["jit"] = "off"
	}
	db := stdlib.OpenDB(*cfg)
	// database/sql keeps two idle connections by default: under
	// concurrent writers it would open and close a PostgreSQL backend
	// (a process) for nearly every transaction. Keep the pool's
	// connections open; PostgreSQL's own limit (max_connections, 100 by
	// default) is shared by every replica.
	db.SetMaxOpenConns(maxPostgresConns)
	db.SetMaxIdleConns(maxPostgresConns)
	if err := MigratePostgres(ctx, db, "events", PostgresMigrations()); err != nil {
		_ = db.Close()
		return nil, err
	}
	p := &Postgres{db: db, connConfig: cfg}
	// The commit signal starts at the head as found, so that the head it
	// reports (the reconcilers' lag, for one) is right before the first
	// commit announced.
	if p.commits.head, err = p.Head(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := p.startListening(ctx, cfg); err != nil {
		_ = db.Close()
		return nil, err
	}
	// Once listening, so that a deletion committed meanwhile is heard.
	if err := p.loadCompaction(ctx); err != nil {
		_ = p.Close()
		return nil, err
	}
	return p, nil
}

// Close closes the followers made of the log (each saves its position
// first), ends the terms of its leaderships, stops listening and closes
// the connections. Closing twice is
// fine.
func (p *Postgres) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	followers, leaderships := p.followers, p.leaderships
	p.followers, p.leaderships = nil, nil
	p.mu.Unlock()

	var errs []error
	for _, f := range followers {
		if err := f.Close(); err != nil {
			errs = append(errs, err)
		}
	}
	// After the followers have saved: whoever leads next resumes there.
	for _, l := range leaderships {
		l.close()
	}
	p.stopListening()
	p.listening.Wait()
	if err := p.db.Close(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// newFollower makes a follower that Close closes.
func (p *Postgres) newFollower(cfg FollowerConfig) (*Follower, error) {
	f, err := newFollower(p, cfg)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errStoreClosed
	}
	p.followers = append(p.followers, f)
	return f, nil
}

// CommitSignal returns the newest head announced, by a commit of this
// process or a notification of another's, and a channel closed by the
// next announcement past it.
func (p *Postgres) CommitSignal() (int64, <-chan struct{}) { return p.commits.signal() }

// Unwritable is why the database cannot be reached now, or nil.
func (p *Postgres) Unwritable(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := p.db.PingContext(ctx); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// ObserveWrite does nothing: whether PostgreSQL can be written is asked
// of it (Unwritable), not inferred from the last write.
func (p *Postgres) ObserveWrite(error) {}

// Begin starts a transaction that appends, on a connection it keeps
// until the transaction ends: the views' rows of a group of ready writes
// run there as one pipelined batch (ViewTx.ExecRecordedWrites), which
// database/sql cannot send.
func (p *Postgres) Begin(ctx context.Context) (LogTx, error) {
	var err error
	// A connection the server ended while it sat idle in the pool (a
	// restart, pg_terminate_backend, an idle timeout) is found out only
	// by the BEGIN sent on it: that connection is dropped and another
	// taken, as many times as the pool held idle ones and once more for
	// a new one. database/sql does this itself only for a connection
	// its driver calls bad beforehand, which pgx checks at most once a
	// second.
	tries := p.db.Stats().Idle + 1
	for range tries {
		var conn *sql.Conn
		if conn, err = p.db.Conn(ctx); err != nil {
			break
		}
		var tx *sql.Tx
		if tx, err = conn.BeginTx(ctx, nil); err == nil {
			return &postgresTx{p: p, conn: conn, txSavepoints: txSavepoints{tx: tx}}, nil
		}
		dead := errors.Is(err, driver.ErrBadConn) || connClosed(conn)
		_ = conn.Close() // a closed one is discarded by the pool, not reused
		if !dead || ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("postgres: begin: %w", err)
}

// connClosed reports whether conn's pgx connection is closed: the
// server ended it, or pgx gave it up after an error that left it
// unusable.
func connClosed(conn *sql.Conn) bool {
	closed := false
	_ = conn.Raw(func(dc any) error {
		if c, ok := dc.(*stdlib.Conn); ok {
			closed = c.Conn().IsClosed()
		}
		return nil
	})
	return closed
}

// SQLTx is the database/sql transaction behind tx, on either engine, for
// the views that write in the same transaction as the log.
func SQLTx(tx LogTx) *sql.Tx {
	switch t := tx.(type) {
	case *sqliteTx:
		return t.tx
	case *postgresTx:
		return t.tx
	}
	return nil
}

// pgConnOf is the connection PostgreSQL's transaction tx runs on, nil
// for another engine's.
func pgConnOf(tx LogTx) *sql.Conn {
	if t, ok := tx.(*postgresTx); ok {
		return t.conn
	}
	return nil
}

// withConn runs fn on one of the pool's connections as pgx's own, for
// what database/sql cannot say: COPY (CopyLog).
func (p *Postgres) withConn(ctx context.Context, fn func(*pgx.Conn) error) error {
	conn, err := p.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	defer func() { _ = conn.Close() }() // back to the pool
	return conn.Raw(func(dc any) error { return fn(dc.(*stdlib.Conn).Conn()) })
}
