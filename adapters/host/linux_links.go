//go:build linux

package host

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"herd/domain"
)

// arphrdLoopback is the loopback device's type in /sys/class/net/*/type
// (ARPHRD_LOOPBACK in linux/if_arp.h).
const arphrdLoopback = "772"

// sysLinks reads the links under dir (/sys/class/net). A link is up when
// its operstate is up, or unknown with a carrier: drivers that do not
// track an operating state (tun, some virtual NICs) leave it unknown.
// Loopback is left out. When the host has physical links (those with a
// device behind them), only they count: a bridge or veth that is up says
// nothing about a host whose NICs are all down. A host without any (a
// container, whose eth0 is a veth) reports its virtual links. nil when
// the host has no link but loopback: then there is nothing to judge.
func sysLinks(dir string) ([]domain.NetworkLink, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("host: network links: %w", err)
	}
	var physical, virtual []domain.NetworkLink
	for _, e := range entries {
		name := e.Name()
		read := func(f string) string {
			data, err := os.ReadFile(filepath.Join(dir, name, f))
			if err != nil {
				return "" // carrier of a link that is down reads EINVAL
			}
			return strings.TrimSpace(string(data))
		}
		if read("type") == arphrdLoopback {
			continue
		}
		state := read("operstate")
		l := domain.NetworkLink{Name: name, State: state, Up: state == "up" || state == "unknown" && read("carrier") == "1"}
		if _, err := os.Lstat(filepath.Join(dir, name, "device")); err == nil {
			physical = append(physical, l)
		} else if errors.Is(err, fs.ErrNotExist) {
			virtual = append(virtual, l)
		} else {
			return nil, fmt.Errorf("host: network link %s: %w", name, err)
		}
	}
	if len(physical) > 0 {
		return physical, nil
	}
	return virtual, nil
}
