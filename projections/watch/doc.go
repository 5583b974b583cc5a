// Package watch serves Kubernetes-style watches and consistent lists from
// herd's log.
//
// A Hub follows the log for every watcher at once: one reader polls the
// log head, folds each new event into the state of the object it touched
// (the hub's cache of every object, as of the hub's position) and keeps
// the recent events, with the object as it was before and after each, in
// a bounded ring. Watchers read the ring at their own pace; the hub never
// waits for them, and one that falls further behind than the ring holds is
// cut off with ErrTooSlow instead of slowing the log or the others. A
// watcher that resumes from an older position reads the log itself,
// folding each object's stream up to where it resumes, until it reaches
// the ring, and switches over without a gap or a duplicate. Folding starts
// from a base, a copy of the cache the hub takes every BaseInterval (the
// first is the views it starts from), so that it reads minutes of a
// stream, not its whole life; only a position from before the hub started
// folds a stream from its first event.
//
// What a resource is — which streams hold its objects, how an event
// changes one, how an object looks to clients, how its view is read — is
// told to the hub once per resource with a Kind. The hub knows nothing of
// Kubernetes or of herd's domain.
//
// A resourceVersion is a log position. History is kept for Config.History:
// a position whose next event is older than that is expired (ErrExpired),
// for watches and pinned lists alike.
//
// watch imports events; it must not import domain, the other views,
// reconcilers or adapters.
package watch
