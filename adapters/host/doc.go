// Package host reads the machine herd's agent runs on: the facts it
// registers with (CPUs, memory, kernel, boot), the metrics it sends with
// every heartbeat (load, memory, disk, processes, CPU use, network links),
// and the state of the services it watches. Linux is read from /proc
// through prometheus/procfs and /sys, its services from systemd over D-Bus
// through go-systemd; illumos through kstat and dladm, its services from
// SMF through svcs. The right one is chosen at build time (Local,
// LocalServices).
//
// It imports domain and adapters/illumos only of herd's packages.
package host
