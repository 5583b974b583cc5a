// Package reconcilers is herd's reconciler framework: level-based
// reconcilers in the manner of controller-runtime, fed by the event log.
//
// One dispatcher follows the log for every reconciler (the consumer group
// "reconcilers", through an events.Follower, which is a watermill
// subscriber, over the storage port events.Log: SQLite or PostgreSQL,
// which keeps the group's position): it reads each record once, outside
// any transaction, and
// hands it to every reconciler's KeysFor, which only puts keys on that
// reconciler's de-duplicating, rate-limited work queue (client-go's) and
// returns; the record is acked once all have. A record nobody can read is
// set aside by every reconciler, one a KeysFor panics on by that
// reconciler alone; both are logged and counted, and the others go on.
// Workers drain each queue outside any transaction and act only through
// domain commands. A resync timer enqueues every key periodically, so a
// crash between an event and its effect heals itself, and delivery may
// repeat a short stretch of the log after a crash.
//
// A key (Key) is a small comparable value, parsed from a record's stream
// once (KeyOf): an object of an aggregate, by namespace and name, or a
// pass of a reconciler's own. Each reconciler declares the keys it takes
// (Scope), and the runner refuses any other as a terminal error before
// Reconcile sees it. KeysFor matches records by the events' Go types (Is,
// EventTypesOf), never by a type's stored name.
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
