package illumostest

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// zfs answers list -H -o name -t filesystem (-d N | -r) DATASET,
// create [-p] [-o prop=value]... DATASET and destroy -r DATASET.
func (h *Host) zfs(args []string) (string, error) {
	if len(args) == 0 {
		return "", fmt.Errorf("zfs: usage")
	}
	switch args[0] {
	case "list":
		return h.zfsList(args[1:])
	case "create":
		return "", h.zfsCreate(args[1:])
	case "destroy":
		if len(args) != 3 || args[1] != "-r" {
			return "", fmt.Errorf("zfs: destroy: usage: destroy -r dataset")
		}
		ds := args[2]
		if _, ok := h.datasets[ds]; !ok {
			return "", fmt.Errorf("cannot open '%s': dataset does not exist", ds)
		}
		for name := range h.datasets {
			if name == ds || strings.HasPrefix(name, ds+"/") {
				delete(h.datasets, name)
			}
		}
		return "", nil
	}
	return "", fmt.Errorf("zfs: unknown subcommand %s", args[0])
}

func (h *Host) zfsList(args []string) (string, error) {
	if len(args) < 7 || !slices.Equal(args[:5], []string{"-H", "-o", "name", "-t", "filesystem"}) {
		return "", fmt.Errorf("zfs: list: usage: %v", args)
	}
	depth := -1
	switch rest := args[5:]; {
	case len(rest) == 2 && rest[0] == "-r":
	case len(rest) == 3 && rest[0] == "-d":
		if _, err := fmt.Sscanf(rest[1], "%d", &depth); err != nil {
			return "", fmt.Errorf("zfs: list: bad depth %q", rest[1])
		}
	default:
		return "", fmt.Errorf("zfs: list: usage: %v", args)
	}
	root := args[len(args)-1]
	if _, ok := h.datasets[root]; !ok {
		return "", fmt.Errorf("cannot open '%s': dataset does not exist", root)
	}
	var out []string
	for _, name := range sortedKeys(h.datasets) {
		if name != root && !strings.HasPrefix(name, root+"/") {
			continue
		}
		if depth >= 0 && strings.Count(strings.TrimPrefix(name, root), "/") > depth {
			continue
		}
		out = append(out, name)
	}
	return lines(out), nil
}

func (h *Host) zfsCreate(args []string) error {
	props := map[string]string{}
	parents := false
	for len(args) > 1 {
		switch args[0] {
		case "-p":
			parents, args = true, args[1:]
		case "-o":
			k, v, ok := strings.Cut(args[1], "=")
			if !ok {
				return fmt.Errorf("zfs: bad property %q", args[1])
			}
			props[k], args = v, args[2:]
		default:
			return fmt.Errorf("zfs: create: unexpected %q", args[0])
		}
	}
	if len(args) != 1 {
		return fmt.Errorf("zfs: create: one dataset, please")
	}
	ds := args[0]
	if _, ok := h.datasets[ds]; ok {
		return fmt.Errorf("cannot create '%s': dataset already exists", ds)
	}
	parent := path.Dir(ds)
	if _, ok := h.datasets[parent]; !ok {
		if !parents || parent == "." {
			return fmt.Errorf("cannot create '%s': parent does not exist", ds)
		}
		if err := h.zfsCreate([]string{"-p", parent}); err != nil {
			return err
		}
	}
	h.datasets[ds] = props
	return nil
}

// mountpoint is where a dataset is mounted: its own mountpoint property,
// or its parent's with its last name appended.
func (h *Host) mountpoint(ds string) string {
	if mp, ok := h.datasets[ds]["mountpoint"]; ok {
		return mp
	}
	parent := path.Dir(ds)
	if parent == "." {
		return "/" + ds
	}
	return path.Join(h.mountpoint(parent), path.Base(ds))
}

// isDir reports whether a directory exists: the mountpoint of a dataset.
func (h *Host) isDir(dir string) bool {
	for ds := range h.datasets {
		if h.mountpoint(ds) == dir {
			return true
		}
	}
	return false
}

// chmod answers chmod MODE DIR for directories that exist.
func (h *Host) chmod(args []string) (string, error) {
	if len(args) != 2 {
		return "", fmt.Errorf("chmod: usage: chmod mode dir")
	}
	if !h.isDir(args[1]) {
		return "", fmt.Errorf("chmod: WARNING: can't access %s", args[1])
	}
	h.modes[args[1]] = args[0]
	return "", nil
}
