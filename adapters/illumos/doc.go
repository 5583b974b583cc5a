// Package illumos runs herd's pods as illumos zones: each pod gets a VNIC,
// a ZFS dataset and a zone, configured from the pod (brand, image, address,
// CPU and memory caps, volumes) and driven through zonecfg, zoneadm, dladm,
// zfs and ipadm.
//
// Every host command goes through a Runner, so the whole runtime is
// testable where no illumos kernel is: illumostest has a runner that
// replays a script and a simulated host that keeps zones, links and
// datasets the way the real commands would. Names are derived from the
// pod alone (its namespace, name and UID), so a runtime that crashed
// halfway through provisioning finds what it made on the next attempt and
// never makes a second zone or VNIC for one pod.
//
// It imports domain only; it must not import projections, reconcilers or
// cmd.
package illumos
