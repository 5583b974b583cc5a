// Package projections turns herd's event log into the views that answer
// queries — nodes and their timelines — and runs the unit of work that
// appends events and updates those views in one transaction.
//
// Views are inline: the append, the view update and the publication commit
// together or not at all, so a client reads its own writes at once. Every
// view can also be rebuilt from the log (Rebuild) through the very same apply
// functions; the rebuilt rows equal the live ones byte for byte.
//
// projections imports domain and events; it must not import reconcilers,
// adapters or anything under cmd.
package projections
