// Package projections turns herd's event log into the views that answer
// queries — nodes and their timelines, pods, ConfigMaps, device bindings,
// IP pools, kubelet targets, the fleet's health — and runs the unit of work
// that appends events and updates those views in one transaction.
//
// Each aggregate's view is described once (see aggregate and describe, one
// file per aggregate): its streams and events (the domain's description),
// how a stored record folds into its state, how its row is loaded and
// written. The unit of work, the rebuild's router, the folds that watches
// use and the tables Verify compares all derive from those descriptions.
//
// Views are inline: the append, the view update and the publication commit
// together or not at all, so a client reads its own writes at once. Every
// view can also be rebuilt from the log (Rebuild) through the very same
// descriptions; the rebuilt rows equal the live ones byte for byte.
//
// projections imports domain and events; it must not import reconcilers,
// adapters or anything under cmd.
package projections
