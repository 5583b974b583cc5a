// Package herdclient is herd's HTTP API as its own agents use it: a node
// registers its host, heartbeats with metrics and deregisters on a clean
// stop; it reads the pods bound to it and itself, reports its pods'
// status and records the steps of their termination. It speaks the wire
// of adapters/httpapi through adapters/conversions, as the server does,
// and returns domain values, so that the zones and termination reconcilers
// run on it as they run on herd's views.
//
// It imports domain and adapters/conversions; it must not import
// projections, reconcilers, adapters/httpapi (the server's HTTP layer) or
// cmd.
package herdclient
