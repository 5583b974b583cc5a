// Package illumostest holds stand-ins for an illumos host, for tests of
// the zone runtime where no illumos kernel is: Script replays recorded
// command outputs and errors in order, and Host is a simulated host that
// keeps zones, data links, datasets and IP interfaces the way zonecfg,
// zoneadm, dladm, zfs and ipadm would, refuses what they would refuse,
// records every command and fails the ones a test asks it to.
package illumostest
