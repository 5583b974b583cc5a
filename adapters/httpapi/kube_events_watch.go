package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	"go.uber.org/zap"

	"herd/projections/watch"
)

// eventPollInterval is how long an Events watch waits, when no commit is
// announced in-process, before reading the log anyway: it only bounds how
// late a commit made by another process shows, as the watch hub's
// default poll does.
const eventPollInterval = time.Second

// watchEvents streams Events as ADDED as the log grows: an event never
// changes and is never deleted. It follows the log itself rather than the
// watch hub, whose objects are streams folded to their newest state.
// Where it starts follows Kubernetes, as serveWatch does: with no
// resourceVersion, or "0", every event so far first; with one, exactly
// after it (410 Expired in the stream when the log was compacted past it,
// 504 when the log has not reached it); sendInitialEvents with a
// BOOKMARK at the end of the initial events when bookmarks are allowed.
func (s *Server) watchEvents(w http.ResponseWriter, r *http.Request, res *apiResource, o listOptions) {
	ctx := r.Context()
	head, err := s.Log.Head(ctx)
	if err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	initial, initialEnd, from := false, false, head
	switch {
	case o.sendInitialEvents != nil && *o.sendInitialEvents:
		initial, initialEnd = true, o.allowBookmarks
	case o.sendInitialEvents != nil:
		if o.rv != "" && o.rv != "0" {
			from = o.position
		}
	case o.rv == "" || o.rv == "0":
		initial = true
	default:
		from = o.position
	}
	var startErr error
	switch c := s.Log.Compaction(); {
	case !initial && from < c.Through:
		startErr = &watch.ExpiredError{Position: from, CompactedThrough: c.Through}
	case !initial && from > head:
		startErr = &watch.TooLargeError{Position: from, Current: head}
	}
	if startErr != nil {
		s.refuseInStream(w, r, res, startErr)
		return
	}
	reader := s.newEventReader(eventScopeFor(o))
	timer, bookmarks := s.watchTimers(o)
	defer timer.Stop()
	f := s.startStream(w, r, res)
	ew := eventWatch{s: s, f: f, res: res, o: o, reader: reader}
	if initial {
		if err := ew.send(ctx, head, true); err != nil {
			ew.end(err)
			return
		}
		if initialEnd {
			f.bookmark(head, true)
		}
	} else if _, err := reader.next(ctx, from); err != nil {
		ew.end(err)
		return
	}
	if err := f.flush(); err != nil {
		return
	}
	poll := time.NewTicker(eventPollInterval)
	defer poll.Stop()
	for {
		// Taken before the read: a commit after it closes the channel.
		_, committed := s.Log.CommitSignal()
		head, err := s.Log.Head(ctx)
		if err == nil {
			err = ew.send(ctx, head, false)
		}
		if err == nil {
			err = f.flush()
		}
		if err != nil {
			ew.end(err)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-committed:
		case <-poll.C:
		case <-bookmarks:
			bookmarks = s.Watch.Bookmarks()
			f.bookmark(reader.pos, false)
		case <-timer.C():
			if o.allowBookmarks {
				f.bookmark(reader.pos, false)
			}
			_ = f.flush()
			return
		}
	}
}

// eventWatch is one watch of Events.
type eventWatch struct {
	s      *Server
	f      *frames
	res    *apiResource
	o      listOptions
	reader *eventReader
}

// send writes the matching events of the log up to upTo as ADDED.
func (ew *eventWatch) send(ctx context.Context, upTo int64, synthetic bool) error {
	evs, err := ew.reader.next(ctx, upTo)
	if err != nil {
		return err
	}
	for _, d := range evs {
		if !ew.o.matchEvent(d) {
			continue
		}
		if err := ew.frame(d, synthetic); err != nil {
			return err
		}
	}
	return nil
}

// frame writes one ADDED event in the form the client asked for.
func (ew *eventWatch) frame(d derivedEvent, synthetic bool) error {
	f := ew.f
	if f.binary != nil {
		return f.binary.frame(string(watch.Added), eventObject(ew.res, d))
	}
	var v any = eventObject(ew.res, d)
	if f.table {
		t := ew.s.eventTable([]derivedEvent{d}, "", f.r)
		if f.headersSent {
			t.ColumnDefinitions = nil
		}
		f.headersSent = true
		v = t
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	id := d.pos
	if synthetic {
		id = 0
	}
	f.frame(string(watch.Added), data, id)
	return nil
}

// end closes a watch that failed: an ERROR event the client can act on,
// unless the client is gone.
func (ew *eventWatch) end(err error) {
	f := ew.f
	if f.broken != nil || f.r.Context().Err() != nil {
		return
	}
	ew.s.Logger.Error("events watch failed", zap.Int64("position", ew.reader.pos), zap.Error(err))
	f.status(statusFor(err, ew.res.kind, ""))
	_ = f.flush()
}
