// Package host reads the machine herd's agent runs on: the facts it
// registers with (CPUs, memory, kernel, boot) and the metrics it sends
// with every heartbeat (load, memory, disk, processes). Linux is read from
// /proc through prometheus/procfs, illumos through kstat; the right one is
// chosen at build time (Local).
//
// It imports domain and adapters/illumos only.
package host
