package events

import (
	"context"
	"fmt"
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

// queryEach reads no further than Head, as Query, on the pool.
func (p *Postgres) queryEach(ctx context.Context, f Filter, fn func(*Record) error) error {
	head, err := p.reader().Head(ctx)
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
	return eachPgRecord(ctx, p.db, rebind(q), args, fn)
}
