package httpapi

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/projections/watch"
)

const (
	// defaultWatchTimeout is how long a watch that names no timeoutSeconds
	// lasts, give or take: each gets between one and two times it, so
	// that reconnecting clients spread out. kube-apiserver's default
	// --min-request-timeout, used the same way.
	defaultWatchTimeout = 30 * time.Minute
	// maxWatchTimeout caps timeoutSeconds.
	maxWatchTimeout = 24 * time.Hour
)

// serveWatch streams the changes to res as Kubernetes watch events.
//
// Where it starts follows Kubernetes: with no resourceVersion, or "0", the
// watch begins with every object as a synthetic ADDED; with a
// resourceVersion, it resumes exactly after that log position; with
// sendInitialEvents=true (and resourceVersionMatch=NotOlderThan) it sends
// the state at least as new as the resourceVersion, then a BOOKMARK
// annotated k8s.io/initial-events-end. A resourceVersion older than the
// history herd keeps gets an ERROR event with a 410 Expired Status; one
// past the log's head an ERROR with 504 and the ResourceVersionTooLarge
// cause.
//
// The watch ends after timeoutSeconds of herd's clock (with a last
// BOOKMARK when bookmarks are allowed), when the client goes, when herd
// stops, or when the client reads so slowly that it falls behind the
// watch cache: then with an ERROR event carrying 410 Expired, after which
// it can resume from its last resourceVersion or list again.
func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, res *apiResource, o listOptions) {
	ctx := r.Context()
	if o.rv == "" && outputOf(w).sse {
		// A browser's EventSource resumes by sending the last id it saw.
		if id := r.Header.Get("Last-Event-ID"); id != "" {
			pos, err := strconv.ParseInt(id, 10, 64)
			if err != nil || pos < 0 {
				s.writeError(w, badRequest("Last-Event-ID must be a resourceVersion (a non-negative integer), got %q", id), res.kind, "")
				return
			}
			o.rv, o.position = id, pos
		}
	}
	req, initialEnd, err := s.watchRequest(ctx, res, o)
	if err != nil {
		s.writeError(w, err, res.kind, "")
		return
	}
	wt, initial, err := s.Watch.Watch(ctx, req)
	switch {
	case errors.Is(err, watch.ErrExpired), errors.Is(err, watch.ErrTooLarge):
		// kube-apiserver answers these inside the stream.
		s.refuseInStream(w, r, res, err)
		return
	case err != nil:
		s.writeError(w, err, res.kind, "")
		return
	}
	defer wt.Close()

	timer, bookmarks := s.watchTimers(o)
	defer timer.Stop()
	f := s.startStream(w, r, res)
	for _, obj := range initial {
		if err := f.event(watch.Added, obj, true); err != nil {
			s.endWatch(f, wt, o, err)
			return
		}
	}
	switch {
	case initialEnd:
		f.bookmark(wt.Position(), true)
	case req.Initial:
		f.position(wt.Position())
	}
	if err := f.flush(); err != nil {
		return
	}

	for {
		if err := s.drain(ctx, wt, f); err != nil {
			s.endWatch(f, wt, o, err)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-wt.Changed():
		case <-bookmarks:
			bookmarks = s.Watch.Bookmarks()
			if err := s.drain(ctx, wt, f); err != nil {
				s.endWatch(f, wt, o, err)
				return
			}
			f.bookmark(wt.Position(), false)
			if err := f.flush(); err != nil {
				return
			}
		case <-timer.C():
			s.endWatch(f, wt, o, s.drain(ctx, wt, f))
			return
		}
	}
}

// watchRequest turns the query into where the watch starts; initialEnd
// says whether the initial state ends with a bookmark.
func (s *Server) watchRequest(ctx context.Context, res *apiResource, o listOptions) (req watch.Request, initialEnd bool, err error) {
	req = watch.Request{Resource: res.name, Match: o.match}
	// The newest state, for "" (the most recent, a consistent read).
	latest := func() (int64, error) { return s.Log.Head(ctx) }
	switch {
	case o.sendInitialEvents != nil && *o.sendInitialEvents:
		req.Initial, initialEnd = true, o.allowBookmarks
		switch o.rv {
		case "":
			req.NotOlderThan, err = latest()
		default:
			req.NotOlderThan = o.position
		}
	case o.sendInitialEvents != nil:
		// No initial state: start at the resourceVersion, or now.
		switch o.rv {
		case "":
			req.From, err = latest()
		case "0":
			req.From = s.Watch.Position()
		default:
			req.From = o.position
		}
	case o.rv == "":
		req.Initial = true
		req.NotOlderThan, err = latest()
	case o.rv == "0":
		req.Initial = true
	default:
		req.From = o.position
	}
	return req, initialEnd, err
}

// drain writes every event the watcher has ready and flushes them.
func (s *Server) drain(ctx context.Context, wt *watch.Watcher, f *frames) error {
	for {
		evs, err := wt.Next(ctx)
		if err != nil {
			return err
		}
		if len(evs) == 0 {
			return f.flush()
		}
		for _, ev := range evs {
			if err := f.event(ev.Type, ev.Object, false); err != nil {
				return err
			}
		}
		if err := f.flush(); err != nil {
			return err
		}
	}
}

// endWatch ends a watch that stopped with err (nil when its time is up):
// a last bookmark when herd stops or the time is up, an ERROR event when
// something went wrong that the client can act on.
func (s *Server) endWatch(f *frames, wt *watch.Watcher, o listOptions, err error) {
	if f.broken != nil {
		s.Logger.Debug("watch client gone", zap.String("resource", f.res.name), zap.Int64("position", wt.Position()), zap.Error(f.broken))
		return
	}
	switch {
	case err == nil, errors.Is(err, watch.ErrClosed):
		if o.allowBookmarks {
			f.bookmark(wt.Position(), false)
		}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return // the client left
	case errors.Is(err, watch.ErrTooSlow):
		s.Logger.Info("watch cut off", zap.String("resource", f.res.name), zap.Int64("position", wt.Position()), zap.Error(err))
		f.status(statusFor(err, f.res.kind, ""))
	default:
		f.status(statusFor(err, f.res.kind, ""))
		s.Logger.Error("watch failed", zap.String("resource", f.res.name), zap.Int64("position", wt.Position()), zap.Error(err))
	}
	_ = f.flush()
}

// watchTimers are a watch's end (after timeoutSeconds, or a random time
// between one and two defaults, as kube-apiserver spreads them) and its
// bookmark ticks when the client takes bookmarks. They run on herd's
// clock from before the client hears of the watch: whatever the clock
// does after that reaches the watch.
func (s *Server) watchTimers(o listOptions) (timer clock.Timer, bookmarks <-chan struct{}) {
	timeout := o.timeout
	if timeout == 0 {
		timeout = defaultWatchTimeout + rand.N(defaultWatchTimeout)
	}
	if o.allowBookmarks {
		bookmarks = s.Watch.Bookmarks()
	}
	return s.Watch.NewTimer(timeout), bookmarks
}

// refuseInStream answers a watch that cannot start with a stream holding
// only the Status of why, as kube-apiserver answers an expired or too new
// resourceVersion.
func (s *Server) refuseInStream(w http.ResponseWriter, r *http.Request, res *apiResource, err error) {
	f := s.startStream(w, r, res)
	f.status(statusFor(err, res.kind, ""))
	_ = f.flush()
}
