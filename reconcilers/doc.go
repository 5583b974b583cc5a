// Package reconcilers is herd's reconciler framework: level-based
// reconcilers in the manner of controller-runtime, fed by the event log.
//
// Each reconciler has its own durable watermill consumer group on the event
// table. Its message handler only maps a log record to keys and puts them
// on a de-duplicating, rate-limited work queue (client-go's), then acks: the
// SQLite subscriber holds the write lock while a message is handled, so any
// real work there would stall every writer. Workers drain the queue outside
// any transaction and act only through domain commands. A resync timer
// enqueues every key periodically, so a crash between an event and its
// effect heals itself.
//
// Subpackages hold the reconcilers themselves (health, ...). This package
// imports events and projections for the log and the views; it must not
// import adapters or cmd.
package reconcilers
