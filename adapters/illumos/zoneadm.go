package illumos

import (
	"fmt"
	"strings"
)

// ZoneState is a zone's state as zoneadm reports it.
type ZoneState string

// The zone states (zones(7)).
const (
	ZoneConfigured   ZoneState = "configured"
	ZoneIncomplete   ZoneState = "incomplete"
	ZoneInstalled    ZoneState = "installed"
	ZoneReady        ZoneState = "ready"
	ZoneRunning      ZoneState = "running"
	ZoneShuttingDown ZoneState = "shutting_down"
	ZoneDown         ZoneState = "down"
)

var zoneStates = map[ZoneState]bool{
	ZoneConfigured: true, ZoneIncomplete: true, ZoneInstalled: true, ZoneReady: true,
	ZoneRunning: true, ZoneShuttingDown: true, ZoneDown: true,
}

// Zone is one line of `zoneadm list -cp`.
type Zone struct {
	// ID is the zone's ID while it is ready or running; -1 otherwise.
	ID     int
	Name   string
	State  ZoneState
	Path   string
	UUID   string
	Brand  string
	IPType string
}

// ParseZoneList reads `zoneadm list -cp`: one zone a line, fields
// id:name:state:path:uuid:brand:ip-type (newer releases add more, which
// are ignored), with ':' and '\' in a field escaped by a backslash. The
// global zone is left out.
func ParseZoneList(out []byte) ([]Zone, error) {
	var zones []Zone
	for i, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		if line == "" {
			continue
		}
		f, err := splitParsable(line)
		if err != nil {
			return nil, fmt.Errorf("zoneadm list line %d %q: %w", i+1, line, err)
		}
		if len(f) < 7 {
			return nil, fmt.Errorf("zoneadm list line %d %q: %d fields, want id:name:state:path:uuid:brand:ip-type", i+1, line, len(f))
		}
		z := Zone{ID: -1, Name: f[1], State: ZoneState(f[2]), Path: f[3], UUID: f[4], Brand: f[5], IPType: f[6]}
		if f[0] != "-" {
			if _, err := fmt.Sscanf(f[0], "%d", &z.ID); err != nil {
				return nil, fmt.Errorf("zoneadm list line %d: zone id %q: %w", i+1, f[0], err)
			}
		}
		if !zoneStates[z.State] {
			return nil, fmt.Errorf("zoneadm list line %d: zone %s in unknown state %q", i+1, z.Name, z.State)
		}
		if z.Name == "global" {
			continue
		}
		zones = append(zones, z)
	}
	return zones, nil
}

// splitParsable splits one line of parsable output at unescaped colons.
func splitParsable(line string) ([]string, error) {
	var (
		fields []string
		cur    strings.Builder
	)
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case '\\':
			if i+1 == len(line) {
				return nil, fmt.Errorf("ends in a lone backslash")
			}
			i++
			cur.WriteByte(line[i])
		case ':':
			fields = append(fields, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(fields, cur.String()), nil
}

// parseLines returns the non-empty lines of a command's output.
func parseLines(out []byte) []string {
	var lines []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}
