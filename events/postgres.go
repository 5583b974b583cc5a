package events

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is the log kept in PostgreSQL, which any number of herd
// processes share. Its writers append concurrently, each in its own
// transaction; its readers see the log in commit order (settledCondition);
// its followers learn of commits through LISTEN/NOTIFY, from this process
// and every other.
//
// It is herd's own adapter rather than watermill-sql's PostgreSQL one:
// the log's positions, optimistic concurrency per stream and reads at a
// position are herd's contract (eventstest), and watermill-sql's schema
// (a JSON payload column, its own offsets table) would neither keep an
// event's bytes as they were given nor let views join the log in one
// transaction.
type Postgres struct {
	pool    *pgxpool.Pool
	commits commits

	stopListening context.CancelFunc
	listening     sync.WaitGroup
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

// OpenPostgres connects to the database at url (libpq's URL or key=value
// form: several hosts, target_session_attrs, sslmode and a password from
// PGPASSWORD or a password file all work as in psql), brings the log's
// schema up to date and starts listening for commits.
func OpenPostgres(ctx context.Context, url string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := MigratePostgres(ctx, pool, "events", PostgresMigrations()); err != nil {
		pool.Close()
		return nil, err
	}
	p := &Postgres{pool: pool}
	if err := p.startListening(ctx, cfg.ConnConfig); err != nil {
		pool.Close()
		return nil, err
	}
	return p, nil
}

// Close stops listening and closes the connections. Closing twice is fine.
func (p *Postgres) Close() error {
	p.stopListening()
	p.listening.Wait()
	p.pool.Close()
	return nil
}

// CommitSignal returns the newest head announced, by a commit of this
// process or a notification of another's, and a channel closed by the
// next announcement past it.
func (p *Postgres) CommitSignal() (int64, <-chan struct{}) { return p.commits.signal() }

// Compaction is the zero Compaction: the retention policy does not run
// on PostgreSQL yet, so nothing has been thinned.
func (p *Postgres) Compaction() Compaction { return Compaction{} }

// Unwritable is why the database cannot be reached now, or nil.
func (p *Postgres) Unwritable(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := p.pool.Ping(ctx); err != nil {
		return fmt.Errorf("postgres: %w", err)
	}
	return nil
}

// ObserveWrite does nothing: whether PostgreSQL can be written is asked
// of it (Unwritable), not inferred from the last write.
func (p *Postgres) ObserveWrite(error) {}

// Begin starts a transaction that appends.
func (p *Postgres) Begin(ctx context.Context) (LogTx, error) {
	tx, err := p.pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("postgres: begin: %w", err)
	}
	return &postgresTx{p: p, tx: tx}, nil
}

// pgQuerier is what reads need of a pool or a transaction.
type pgQuerier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

var (
	_ pgQuerier = (*pgxpool.Pool)(nil)
	_ pgQuerier = (pgx.Tx)(nil)
)
