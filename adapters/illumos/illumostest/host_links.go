package illumostest

import (
	"fmt"
	"slices"
	"strings"

	"herd/adapters/illumos"
)

// dladm answers show-link, show-vnic, show-etherstub (-p -o link),
// create-vnic -l LINK NAME, delete-vnic NAME and create-etherstub NAME.
func (h *Host) dladm(args []string) (string, error) {
	if len(args) == 4 && args[1] == "-p" && args[2] == "-o" && args[3] == "link" {
		var names []string
		switch args[0] {
		case "show-link":
			names = append(append(slices.Clone(h.links), sortedKeys(h.stubs)...), sortedKeys(h.vnics)...)
		case "show-vnic":
			names = sortedKeys(h.vnics)
		case "show-etherstub":
			names = sortedKeys(h.stubs)
		default:
			return "", fmt.Errorf("dladm: unknown subcommand %s", args[0])
		}
		return lines(names), nil
	}
	switch {
	case len(args) == 4 && args[0] == "create-vnic" && args[1] == "-l":
		over, name := args[2], args[3]
		if err := illumos.ValidLinkName(name); err != nil {
			return "", fmt.Errorf("dladm: vnic creation failed: %w", err)
		}
		if !slices.Contains(h.links, over) && !h.stubs[over] {
			return "", fmt.Errorf("dladm: invalid link name '%s': object not found", over)
		}
		if h.exists(name) {
			return "", fmt.Errorf("dladm: vnic creation failed: object already exists")
		}
		h.vnics[name] = over
	case len(args) == 2 && args[0] == "delete-vnic":
		if _, ok := h.vnics[args[1]]; !ok {
			return "", fmt.Errorf("dladm: vnic deletion failed: object not found")
		}
		for _, z := range h.zones {
			if z.state == "running" && slices.Contains(z.physical, args[1]) {
				return "", fmt.Errorf("dladm: vnic deletion failed: link busy")
			}
		}
		delete(h.vnics, args[1])
	case len(args) == 2 && args[0] == "create-etherstub":
		if h.exists(args[1]) {
			return "", fmt.Errorf("dladm: etherstub creation failed: object already exists")
		}
		h.stubs[args[1]] = true
	default:
		return "", fmt.Errorf("dladm: usage: %v", args)
	}
	return "", nil
}

// exists reports whether a link of any kind has the name.
func (h *Host) exists(name string) bool {
	_, vnic := h.vnics[name]
	return vnic || h.stubs[name] || slices.Contains(h.links, name)
}

// ipadm answers show-if -p -o ifname, show-addr -p -o addrobj, create-if
// NAME and create-addr -T static -a ADDRESS OBJECT.
func (h *Host) ipadm(args []string) (string, error) {
	switch {
	case slices.Equal(args, []string{"show-if", "-p", "-o", "ifname"}):
		return lines(sortedKeys(h.ifs)), nil
	case slices.Equal(args, []string{"show-addr", "-p", "-o", "addrobj"}):
		return lines(sortedKeys(h.addrs)), nil
	case len(args) == 2 && args[0] == "create-if":
		if !h.exists(args[1]) {
			return "", fmt.Errorf("ipadm: could not create %s: no such datalink", args[1])
		}
		if h.ifs[args[1]] {
			return "", fmt.Errorf("ipadm: could not create %s: interface already exists", args[1])
		}
		h.ifs[args[1]] = true
	case len(args) == 6 && args[0] == "create-addr" && args[1] == "-T" && args[2] == "static" && args[3] == "-a":
		ifname, _, _ := strings.Cut(args[5], "/")
		if !h.ifs[ifname] {
			return "", fmt.Errorf("ipadm: could not create address: interface %s does not exist", ifname)
		}
		if _, ok := h.addrs[args[5]]; ok {
			return "", fmt.Errorf("ipadm: could not create address: address object already exists")
		}
		h.addrs[args[5]] = args[4]
	default:
		return "", fmt.Errorf("ipadm: usage: %v", args)
	}
	return "", nil
}

func lines(names []string) string {
	if len(names) == 0 {
		return ""
	}
	return strings.Join(names, "\n") + "\n"
}
