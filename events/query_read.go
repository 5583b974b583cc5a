package events

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// QueryEach calls fn with each event f matches, in position order, as
// the database hands it over, rather than returning them all: a page of
// the audit log (what a drain led to: 10,000 events) is written as it is
// read, with no list of records made first. The record fn gets, and its
// Payload's bytes, are the read's and are used again for the next event:
// fn copies what it keeps. An error from fn ends the read and is
// returned as it is; an error of the read is Query's.
//
// A log that does not read this way itself (a test's wrapper of one)
// is read with Query.
func QueryEach(ctx context.Context, l LogReader, f Filter, fn func(*Record) error) error {
	if q, ok := l.(eachQuerier); ok {
		return q.queryEach(ctx, f, fn)
	}
	recs, err := l.Query(ctx, f)
	if err != nil {
		return err
	}
	for i := range recs {
		if err := fn(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// eachQuerier is a log that reads a query's events one at a time.
type eachQuerier interface {
	queryEach(ctx context.Context, f Filter, fn func(*Record) error) error
}

var (
	_ eachQuerier = sqliteLog{}
	_ eachQuerier = (*Postgres)(nil)
)

func (l sqliteLog) queryEach(ctx context.Context, f Filter, fn func(*Record) error) error {
	query, args, err := f.sql(sqliteDialect)
	if err != nil {
		return err
	}
	return eachDriverRecord(ctx, l.s.db, query, args, fn)
}

func (p *Postgres) queryEach(ctx context.Context, f Filter, fn func(*Record) error) error {
	return p.reader().queryEach(ctx, f, fn)
}

// queryEach reads no further than Head, as Query.
func (r pgReader) queryEach(ctx context.Context, f Filter, fn func(*Record) error) error {
	head, err := r.Head(ctx)
	if err != nil {
		return fmt.Errorf("query events: %w", withContext(ctx, err))
	}
	if f.Before <= 0 || f.Before > head+1 {
		f.Before = head + 1
	}
	q, args, err := f.sql(pgDialect)
	if err != nil {
		return err
	}
	if db, ok := r.q.(*sql.DB); ok {
		return eachPgRecord(ctx, db, rebind(q), args, fn)
	}
	return eachRecord(ctx, r.q, rebind(q), args, fn)
}

// eachRecord runs query and calls fn with each row read as a Record,
// the one Record again for every row, its payload the driver's bytes.
func eachRecord(ctx context.Context, q Querier, query string, args []any, fn func(*Record) error) (err error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("query events: %w", withContext(ctx, err))
	}
	defer func() {
		if cerr := rows.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("query events: %w", withContext(ctx, cerr))
		}
	}()
	var (
		scanner recordScanner
		rec     Record
	)
	for rows.Next() {
		if err := scanner.scanInPlace(rows, &rec); err != nil {
			return fmt.Errorf("query events: %w", withContext(ctx, err))
		}
		if err := fn(&rec); err != nil {
			return err // fn's, as it is
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("query events: %w", withContext(ctx, err))
	}
	return nil
}

// scanInPlace reads the row rows is at into r, its payload the
// scanner's bytes (the driver's, copied once), used again by the next
// row.
func (s *recordScanner) scanInPlace(rows *sql.Rows, r *Record) error {
	var recordedAt int64
	*r = Record{}
	if err := rows.Scan(&r.Position, &r.ID, &r.Stream, &r.Version, &r.Type, &r.SchemaVersion,
		&recordedAt, &s.payload, &s.metadata); err != nil {
		return err
	}
	r.RecordedAt = time.Unix(0, recordedAt).UTC()
	// As Query reads it: an empty column is an empty payload, not a nil
	// one.
	r.Payload = json.RawMessage(s.payload)
	if r.Payload == nil {
		r.Payload = json.RawMessage{}
	}
	return r.setMetadata(s.metadata, &s.names)
}
