package events

import (
	"context"
	"time"
)

// Log is the event log behind one interface, whatever engine keeps it:
// SQLite on one machine (Store.Log), PostgreSQL past it (OpenPostgres).
// The contract suite in eventstest runs unchanged against each.
type Log interface {
	LogReader
	GroupPositions
	Snapshots
	// Begin starts a transaction that appends: what it appends is seen
	// by readers, all of it, once Commit returns, and never after
	// Rollback.
	Begin(ctx context.Context) (LogTx, error)
	// CommitSignal returns the newest head announced and a channel closed
	// by the next commit past it. Take the signal before reading the log,
	// then wait on the channel once the read found nothing new: a commit
	// between the two closes it.
	CommitSignal() (int64, <-chan struct{})
	// Compaction is how far the retention policy has thinned the log, as
	// this process knows it: a read at a position before its Through
	// gets 410 Expired. On PostgreSQL a replica learns of another's
	// deletion a little after it commits (Postgres.Compaction).
	Compaction() Compaction
	// Unwritable says why the log cannot be written now (a full disk, no
	// primary database reachable), or nil: /readyz reports it.
	Unwritable(ctx context.Context) error
	// ObserveWrite tells the log how a write ended (nil for a success),
	// for Unwritable: a storage failure makes the log unwritable until a
	// later write succeeds.
	ObserveWrite(err error)
	// Close closes the followers made of the log (NewFollower), each
	// once it has saved its position, and releases the log's
	// connections.
	Close() error
}

// LogReader reads the log. Outside a transaction a reader sees only
// committed events, and a follower that reads forward from a position
// never skips one: an event becomes visible at a position only once every
// event before it is visible or gone for good.
type LogReader interface {
	// Head is the position of the newest event every reader can see, 0
	// for an empty log: a list's resourceVersion.
	Head(ctx context.Context) (int64, error)
	// ReadStream returns the events of stream after version afterVersion,
	// in version order.
	ReadStream(ctx context.Context, stream string, afterVersion int64) ([]Record, error)
	// ReadAfter returns up to limit events after position, in position
	// order; limit 0 or less means all of them.
	ReadAfter(ctx context.Context, position int64, limit int) ([]Record, error)
	// ReadStreamRange returns the events of stream whose positions lie in
	// (after, upTo], in version order.
	ReadStreamRange(ctx context.Context, stream string, after, upTo int64) ([]Record, error)
	// Query returns the events f matches, in position order.
	Query(ctx context.Context, f Filter) ([]Record, error)
}

// GroupPositions keeps where each consumer group stands in the log, in
// the log's own database: a Follower resumes where its group left off,
// after a restart, and in whichever process shares the database. Groups
// are independent; a group's name is compared byte by byte.
type GroupPositions interface {
	// GroupPosition is the position after which group resumes: the one
	// it saved last. A group not seen before starts at the lowest
	// position saved by the groups whose names begin with inherit (none,
	// or inherit "": 0), and is registered there at once, so that a
	// crash before its first save does not send it back further.
	GroupPosition(ctx context.Context, group, inherit string) (int64, error)
	// SaveGroupPosition records that group has handled the log up to
	// and including position.
	SaveGroupPosition(ctx context.Context, group string, position int64) error
}

// Engine names an engine behind the port, for what above it still
// speaks each engine's SQL (the views' statements).
type Engine string

// The engines.
const (
	EngineSQLite   Engine = "sqlite"
	EnginePostgres Engine = "postgres"
)

// LogTx is one transaction on the log. Its reads see its own appends.
type LogTx interface {
	LogReader
	// Engine is the engine the transaction runs on.
	Engine() Engine
	// Append stores evs as the next events of stream. expectedVersion is
	// the stream's version as the caller last saw it (0 for a new
	// stream); when the stream is elsewhere Append stores nothing,
	// returns a *ConflictError, and the transaction stays usable. All
	// events get the time at and the metadata md.
	Append(ctx context.Context, stream string, expectedVersion int64, md Metadata, at time.Time, evs ...NewEvent) ([]Record, error)
	// Savepoint marks the point RollbackToSavepoint returns to and
	// ReleaseSavepoint forgets: the group commit runs each command in
	// one, so that a refused command leaves the others' work in place.
	// They nest.
	Savepoint(ctx context.Context) error
	RollbackToSavepoint(ctx context.Context) error
	ReleaseSavepoint(ctx context.Context) error
	// Commit makes the appends visible and wakes the log's followers.
	Commit() error
	// Rollback drops them. After Commit it does nothing.
	Rollback() error
}
