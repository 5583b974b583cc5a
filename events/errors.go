package events

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// ErrConflict is the optimistic concurrency failure: the stream was not at
// the version the appender expected, because someone else appended first
// (or the caller's idea of the stream is simply wrong). Reload and decide
// again. Every conflict is a *ConflictError; test with errors.Is.
var ErrConflict = errors.New("optimistic concurrency conflict")

// ConflictError says which stream was not at which version.
type ConflictError struct {
	// Stream is the stream that was appended to.
	Stream string
	// Expected is the version the appender believed the stream was at.
	Expected int64
	// Actual is the version the stream was at, or -1 if it could not be
	// read.
	Actual int64
}

// Error names the stream and both versions.
func (e *ConflictError) Error() string {
	if e.Actual < 0 {
		return fmt.Sprintf("append %s: expected version %d: %v", e.Stream, e.Expected, ErrConflict)
	}
	return fmt.Sprintf("append %s: expected version %d, stream is at %d: %v", e.Stream, e.Expected, e.Actual, ErrConflict)
}

// Is makes errors.Is(err, ErrConflict) true.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

const streamVersionQuery = `SELECT COALESCE(MAX(version), 0) FROM events WHERE stream = ?`

// appendError turns a failed insert into a *ConflictError when the stream
// was not at expected. An append reads its stream's version before its
// INSERT and refuses a stale one itself; what is left to fail here is
// UNIQUE(stream, version), with SQLITE_CONSTRAINT, and so does a
// duplicate event id, which is not a conflict. Rather than parse messages, read the stream's version:
// the transaction holds the write lock, so what it reads is what the insert
// saw. The failed statement was undone (ABORT), so tx stays usable.
func appendError(ctx context.Context, tx *sql.Tx, stream string, expected int64, err error) error {
	constraint, trigger := constraintError(err)
	if !constraint {
		return fmt.Errorf("append %s@%d: %w", stream, expected, err)
	}
	var actual int64
	if qerr := tx.QueryRowContext(ctx, streamVersionQuery, stream).Scan(&actual); qerr != nil {
		if trigger {
			return &ConflictError{Stream: stream, Expected: expected, Actual: -1}
		}
		return fmt.Errorf("append %s@%d: %w", stream, expected, errors.Join(err, qerr))
	}
	if actual != expected {
		return &ConflictError{Stream: stream, Expected: expected, Actual: actual}
	}
	return fmt.Errorf("append %s@%d: %w", stream, expected, err)
}
