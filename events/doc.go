// Package events is herd's event log: the one truth every view, reconciler
// and audit query is derived from.
//
// Events live in one SQLite file, in a table that is at the same time the
// watermill-sql topic table of Topic. Append publishes inside the caller's
// transaction, so an event and the view changes made with it commit
// together or not at all. Appends are optimistic: each reads its
// stream's highest version before its rows go in, inside the transaction
// that holds the write lock, and UNIQUE(stream, version) backs it, so a
// writer with a stale expected version gets a *ConflictError, never a
// lost update. Subscribe and NewSubscriber give
// durable watermill consumer groups over the same table that take the
// write lock on every poll; a Follower is a watermill subscriber that
// reads with plain reads, wakes when a commit is announced (Committed)
// and writes its position only when it moved, which is how herd's own
// followers read the log. Migrate is a small
// versioned migrator that other packages use for their own tables.
// Leadership elects, among the herd processes sharing a log, the one that
// runs a job (on PostgreSQL by advisory locks; on SQLite, which one
// process writes, at once).
//
// Events are never updated. Old rows of high-volume, state-free event
// types (plain heartbeats) may be deleted by a documented retention
// policy; streams stay appendable afterwards because the next version is
// one past the highest stored one.
//
// This package must not import herd's domain (or anything else of herd's):
// a payload is JSON bytes plus a type name, and giving them meaning is the
// business of the packages that import events.
package events
