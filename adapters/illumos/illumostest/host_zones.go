package illumostest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"herd/adapters/illumos"
)

// zoneadm answers `zoneadm list -cp` and `zoneadm -z ZONE <subcommand>`.
func (h *Host) zoneadm(args []string) (string, error) {
	if slices.Equal(args, []string{"list", "-cp"}) {
		var b strings.Builder
		b.WriteString("0:global:running:/::ipkg:shared\n")
		for _, name := range sortedKeys(h.zones) {
			z := h.zones[name]
			id := "-"
			if z.state == "running" || z.state == "ready" || z.state == "shutting_down" || z.state == "down" {
				id = fmt.Sprint(z.id)
			}
			fmt.Fprintf(&b, "%s:%s:%s:%s:%s:%s:excl\n", id, z.name, z.state, escape(z.path), z.uuid, z.brand)
		}
		return b.String(), nil
	}
	if len(args) < 3 || args[0] != "-z" {
		return "", fmt.Errorf("zoneadm: usage: zoneadm -z zone subcommand")
	}
	z, ok := h.zones[args[1]]
	if !ok {
		return "", fmt.Errorf("zoneadm: %s: No such zone configured", args[1])
	}
	sub, rest := args[2], args[3:]
	bad := func() (string, error) {
		return "", fmt.Errorf("zoneadm: zone '%s': %s operation is invalid for %s zones", z.name, sub, z.state)
	}
	switch sub {
	case "install":
		if z.state != "configured" {
			return bad()
		}
		if len(rest) > 0 && (len(rest) != 2 || rest[0] != "-s") {
			return "", fmt.Errorf("zoneadm: install: unexpected arguments %v", rest)
		}
		if len(rest) == 2 && z.brand == "sparse" {
			return "", errors.New("zoneadm: brand sparse does not install from an image")
		}
		if z.brand == "lx" && len(rest) == 0 {
			return "", errors.New("zoneadm: lx brand: an image (-s) is required")
		}
		if !h.isDir(z.path) {
			return "", fmt.Errorf("zoneadm: zonepath %s does not exist", z.path)
		}
		if mode := h.modes[z.path]; mode != "700" {
			return "", fmt.Errorf("zoneadm: %s must not be group readable (mode %s, want 700)", z.path, mode)
		}
		h.uuids++
		z.state, z.uuid = "installed", fmt.Sprintf("00000000-0000-4000-8000-%012d", h.uuids)
	case "boot":
		if z.state != "installed" && z.state != "ready" {
			return bad()
		}
		for _, p := range z.physical {
			if _, ok := h.vnics[p]; !ok {
				return "", fmt.Errorf("zoneadm: zone %s: failed to add network device: datalink %s not found", z.name, p)
			}
		}
		h.nextID++
		z.state, z.id = "running", h.nextID
	case "shutdown":
		if z.state != "running" {
			return bad()
		}
		z.state = "installed"
		if h.stubborn[z.name] {
			z.state = "shutting_down"
		}
	case "halt":
		switch z.state {
		case "running", "ready", "shutting_down", "down":
			z.state = "installed"
		default:
			return bad()
		}
	case "uninstall":
		if !slices.Equal(rest, []string{"-F"}) {
			return "", errors.New("zoneadm: uninstall: herd always passes -F")
		}
		if z.state != "installed" && z.state != "incomplete" {
			return bad()
		}
		z.state, z.uuid = "configured", ""
	default:
		return "", fmt.Errorf("zoneadm: unknown subcommand %s", sub)
	}
	return "", nil
}

// zonecfg answers `zonecfg -z ZONE -f /dev/stdin` (a command file) and
// `zonecfg -z ZONE delete -F`.
func (h *Host) zonecfg(args []string, stdin string) (string, error) {
	switch {
	case len(args) == 4 && args[0] == "-z" && args[2] == "-f" && args[3] == "/dev/stdin":
		return "", h.configure(args[1], stdin)
	case len(args) == 4 && args[0] == "-z" && args[2] == "delete" && args[3] == "-F":
		z, ok := h.zones[args[1]]
		switch {
		case !ok:
			return "", fmt.Errorf("zonecfg: %s: No such zone configured", args[1])
		case z.state != "configured":
			return "", fmt.Errorf("zonecfg: zone %s is %s; uninstall it first", z.name, z.state)
		}
		delete(h.zones, z.name)
		return "", nil
	}
	return "", fmt.Errorf("zonecfg: usage: %v", args)
}

// configure applies a command file: a new zone, committed all at once.
func (h *Host) configure(name, file string) error {
	if err := illumos.ValidZoneName(name); err != nil {
		return fmt.Errorf("zonecfg: %w", err)
	}
	if _, ok := h.zones[name]; ok {
		return fmt.Errorf("zonecfg: zone %s already exists; use create -F to overwrite", name)
	}
	z := &zone{name: name, state: "configured"}
	lines := strings.Split(strings.TrimSpace(file), "\n")
	if len(lines) < 2 || lines[0] != "create -b" || lines[len(lines)-1] != "commit" {
		return errors.New("zonecfg: the command file must start with create -b and end with commit")
	}
	scope := ""
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "add "):
			if scope != "" {
				return fmt.Errorf("zonecfg: line %d: add inside %s", i+1, scope)
			}
			scope = strings.TrimPrefix(l, "add ")
		case l == "end":
			if scope == "" {
				return fmt.Errorf("zonecfg: line %d: end outside a resource", i+1)
			}
			scope = ""
		case strings.HasPrefix(l, "set "):
			k, v, _ := strings.Cut(strings.TrimPrefix(l, "set "), "=")
			switch {
			case scope == "" && k == "brand":
				z.brand = v
			case scope == "" && k == "zonepath":
				z.path = v
			case scope == "net" && k == "physical":
				z.physical = append(z.physical, v)
			}
		}
	}
	if scope != "" {
		return fmt.Errorf("zonecfg: resource %s never ended", scope)
	}
	if z.brand == "" || z.path == "" {
		return errors.New("zonecfg: verify: brand and zonepath are required")
	}
	h.zones[name] = z
	return nil
}

func escape(s string) string { return strings.NewReplacer(`\`, `\\`, ":", `\:`).Replace(s) }
