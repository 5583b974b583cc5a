package httpapi

import (
	"bytes"
	"context"
	"slices"

	"herd/domain"
	"herd/events"
)

// auditParts is what ?type= asks for when some of the asked types'
// events may be recorded inside another (a report that changes two of a
// node's conditions is one NodeStatusChanged; marking a silent node is
// one HeartbeatMissed holding its taints): the types that may carry them
// are read too, and each of their events is listed when one of its parts
// is of a type asked for. Without it, `herd log --type
// NodeConditionChanged` would miss most condition changes.
type auditParts struct {
	asked []string // as asked: an event of one of these is listed as it is
}

// carriersFor widens f's types by the types that may carry an asked
// type's events, leaving out those the query already reads and those
// excluded; nil when there are none, and f is then read as it is.
func carriersFor(f *events.Filter, excluded []string) *auditParts {
	if len(f.Types) == 0 {
		return nil
	}
	asked := f.Types
	var added []string
	for _, typ := range asked {
		for _, c := range domain.TypesHolding(typ)[1:] {
			if !slices.Contains(asked, c) && !slices.Contains(excluded, c) && !slices.Contains(added, c) {
				added = append(added, c)
			}
		}
	}
	if len(added) == 0 {
		return nil
	}
	f.Types = append(slices.Clone(asked), added...)
	return &auditParts{asked: asked}
}

// keeps reports whether rec is asked for: of an asked type, or holding an
// event of one among its parts. A carrier whose payload cannot be read
// is listed, not hidden: the reader then sees it and what it says.
func (p *auditParts) keeps(rec *events.Record) bool {
	if slices.Contains(p.asked, rec.Type) {
		return true
	}
	ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
	if err != nil {
		return true
	}
	c, ok := ev.(domain.Composite)
	if !ok {
		return true
	}
	return slices.ContainsFunc(c.Parts(), func(part domain.Event) bool {
		return slices.Contains(p.asked, part.EventType())
	})
}

// eachAudited calls fn with each event of f that p keeps, in position
// order, as events.QueryEach does with f alone (p nil). A page still
// holds f.Limit events when the log has them: it reads on past the
// carriers it leaves out, forward from f.After or, for the newest
// (f.Newest), back from f.Before.
func eachAudited(ctx context.Context, log events.LogReader, f events.Filter, p *auditParts, fn func(*events.Record) error) error {
	if p == nil {
		return events.QueryEach(ctx, log, f, fn)
	}
	if f.Limit <= 0 || f.ID != "" {
		return events.QueryEach(ctx, log, f, func(rec *events.Record) error {
			if !p.keeps(rec) {
				return nil
			}
			return fn(rec)
		})
	}
	if f.Newest {
		return eachNewestAudited(ctx, log, f, p, fn)
	}
	for n := 0; ; {
		g := f
		g.Limit = f.Limit - n
		scanned, last := 0, int64(0)
		err := events.QueryEach(ctx, log, g, func(rec *events.Record) error {
			scanned, last = scanned+1, rec.Position
			if !p.keeps(rec) {
				return nil
			}
			n++
			return fn(rec)
		})
		if err != nil || scanned < g.Limit || n == f.Limit {
			return err
		}
		f.After = last
	}
}

// eachNewestAudited is eachAudited for the newest f.Limit events: each
// read goes back from the oldest event the one before it read, and the
// events kept are given in position order once they are all found.
func eachNewestAudited(ctx context.Context, log events.LogReader, f events.Filter, p *auditParts, fn func(*events.Record) error) error {
	var (
		rounds [][]events.Record // newest first
		n      int
	)
	for {
		g := f
		g.Limit = f.Limit - n
		var (
			round   []events.Record
			scanned int
			first   int64
		)
		err := events.QueryEach(ctx, log, g, func(rec *events.Record) error {
			if scanned++; scanned == 1 {
				first = rec.Position
			}
			if p.keeps(rec) {
				kept := *rec
				kept.Payload = bytes.Clone(rec.Payload) // the reader reuses it
				round = append(round, kept)
			}
			return nil
		})
		if err != nil {
			return err
		}
		rounds = append(rounds, round)
		n += len(round)
		if scanned < g.Limit || n == f.Limit || first <= 1 {
			break
		}
		f.Before = first
	}
	for i := len(rounds) - 1; i >= 0; i-- {
		for j := range rounds[i] {
			if err := fn(&rounds[i][j]); err != nil {
				return err
			}
		}
	}
	return nil
}
