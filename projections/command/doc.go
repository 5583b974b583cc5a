// Package command is herd's command layer: the unit of work every
// command runs in, between the domain (which decides) and the storage
// port (which appends). It owns the executor (Commands, Update), the
// group commit that takes concurrent commands into one write transaction
// (and its metrics), the prepared path that decides and encodes a
// command outside the write lock and has the leader only check its
// version and append, the state cache of committed states, and the write
// queue that says how far behind the write path is (ARCHITECTURE.md,
// "Where the serial section is").
//
// It knows nothing of the read models' tables: each kind of aggregate
// is described to it as an Aggregate (load a state from its view, fold an
// event, write the rows an event implies), which the projections package
// supplies, one per kind. It imports only the domain and the log.
package command
