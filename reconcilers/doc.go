// Package reconcilers is herd's reconciler framework: level-based
// reconcilers in the manner of controller-runtime, fed by the event log.
//
// One dispatcher follows the log for every reconciler (the consumer group
// "reconcilers", through an events.Follower, which is a watermill
// subscriber, over the storage port events.Log: SQLite or PostgreSQL,
// which keeps the group's position): it reads each record once, outside
// any transaction, and
// maps it, for every reconciler, to the keys its declaration (Watches)
// derives, which only go on that reconciler's de-duplicating,
// rate-limited work queue (client-go's); the record is acked once all
// have. A record nobody can read is set aside by every reconciler, one a
// reconciler's mapping panics on or cannot decode by that reconciler
// alone; both are logged and counted, and the others go on.
// Workers drain each queue outside any transaction and act only through
// domain commands. A resync timer enqueues every key periodically, so a
// crash between an event and its effect heals itself, and delivery may
// repeat a short stretch of the log after a crash.
//
// A key (Key) is a small comparable value, parsed from a record's stream
// once (KeyOf): an object of an aggregate, by namespace and name, or a
// pass of a reconciler's own. Each reconciler declares once what it
// watches, as controller-runtime's builder does (Watch): its own kinds
// (For: every event of an object maps to the object, but those the
// declaration excepts, such as the status it records itself), the kinds
// its objects control (Owns: every event of an owned object maps to its
// controller, through the owner references the events carry and an
// OwnerIndex), and mappings truly its own (Watches: a pod's binding to
// its node). The runner derives from it the keys of each record and the
// keys the reconciler takes (Scope), and refuses any other key as a
// terminal error before Reconcile sees it. Declarations name events by
// their Go types (EventTypesOf, EventsOf), never by a type's stored name,
// and a kind's event types come from the domain, so a new one is watched
// without being copied into a list.
//
// What a reconcile appends names as its cause the record whose change
// its decision read (cause.go): the reconciler says which, with Because,
// BecauseOf or BecauseEach, looked up in the log up to the version it
// read; the newest record that queued the key is only the fallback, for a
// decision that reads no one change.
//
// Of the herd processes sharing a log, one at a time runs the
// reconcilers: the one that leads the job Job (events.Leadership; on
// SQLite herd leads at once). Another takes over, from the dispatcher's
// saved position and with a resync of every key, when the leader goes.
//
// Subpackages hold the reconcilers themselves (health, ...). This package
// imports events and projections for the log and the views; it must not
// import adapters or cmd.
package reconcilers
