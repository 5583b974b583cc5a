// Package loadgen is herd's fleet simulator: it registers N nodes with a
// running herd and sends their heartbeats as a kubelet, a herd agent or an
// RP2040 board does, over C connections, and reports what herd
// acknowledged: heartbeats per second, latency percentiles, refusals by
// HTTP status, and — given herd's process ID — herd's CPU and memory over
// the measured window. It also measures an idle herd, and how late herd
// marks nodes that fall silent, by herd's own clock. Given several
// servers — replicas of one herd sharing a database — each node talks to
// one of them only, and the report breaks every phase down by server.
//
// It speaks to herd over HTTP only, through the clients herd's own edges
// use (adapters/herdclient, adapters/rp2040/picosim), and refuses any
// server outside the loopback networks unless told otherwise. It must not
// import projections, reconcilers or events: it sees herd from outside.
package loadgen
