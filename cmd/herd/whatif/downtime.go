package whatif

import (
	"context"
	"time"

	"herd/domain"
	"herd/events"
)

// Downtime is a stretch of time in which herd was down (stopped,
// restarting, upgrading), from the last record the log holds before its
// health rules started again until they did. It is an input of the
// what-if, not one of its findings: the simulation stops herd's engine at
// From and starts it again at Until, so that no reconciler runs between,
// and every node has a full grace period from Until, as herd gave it.
type Downtime struct {
	// From is when the log last recorded anything before herd came back.
	From time.Time `json:"from"`
	// Until is when herd's health rules started again.
	Until time.Time `json:"until"`
}

// start is one start of the health rules, as the log records it.
type start struct {
	at       time.Time
	position int64
}

// starts reads the health rules' starts that matter to a window that
// begins after position from: the last one at or before it (its grace
// periods may still run), and every one after it.
func starts(ctx context.Context, log events.LogReader, from int64) ([]start, error) {
	var out []start
	if from > 0 {
		before, err := log.Query(ctx, events.Filter{Stream: domain.FleetHealthStream, Types: []string{startedType}, Before: from + 1, Limit: 1, Newest: true})
		if err != nil {
			return nil, err
		}
		for _, rec := range before {
			s, err := startOf(rec)
			if err != nil {
				return nil, err
			}
			out = append(out, s)
		}
	}
	after, err := log.Query(ctx, events.Filter{Stream: domain.FleetHealthStream, Types: []string{startedType}, After: from})
	if err != nil {
		return nil, err
	}
	for _, rec := range after {
		s, err := startOf(rec)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func startOf(rec events.Record) (start, error) {
	ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
	if err != nil {
		return start{}, err
	}
	return start{at: ev.(domain.HealthMonitorStarted).At, position: rec.Position}, nil
}

// downtimes are the stretches before each start after position from in
// which herd's health rules did not run: from the newest record the log
// holds from before the start's time, to the start; those that begin
// before until, the window's end (a downtime after the window is none of
// its inputs).
func downtimes(ctx context.Context, log events.LogReader, ss []start, from int64, until time.Time) ([]Downtime, error) {
	var out []Downtime
	for _, s := range ss {
		if s.position <= from {
			continue
		}
		last, err := log.Query(ctx, events.Filter{Until: s.at, Before: s.position, Limit: 1, Newest: true})
		if err != nil {
			return nil, err
		}
		d := Downtime{Until: s.at}
		if len(last) == 1 {
			d.From = last[0].RecordedAt
		}
		if (d.From.IsZero() || d.From.Before(d.Until)) && d.From.Before(until) {
			out = append(out, d)
		}
	}
	return out, nil
}

// watchingSince is when the health rules in effect at now started: the
// newest start at or before now, zero when the log records none.
func watchingSince(ss []start, now time.Time) time.Time {
	var since time.Time
	for _, s := range ss {
		if !s.at.After(now) && s.at.After(since) {
			since = s.at
		}
	}
	return since
}
