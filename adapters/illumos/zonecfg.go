package illumos

import (
	"fmt"
	"strings"
)

// zonecfg writes the command file. The zone does not boot with the host:
// herd boots it when its pod should run, and a zone found stopped after a
// reboot fails its pod rather than coming back behind herd's back.
func (s zoneSpec) zonecfg(cfg Config) string {
	var b strings.Builder
	line := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	line("create -b")
	line("set brand=%s", s.brand)
	line("set zonepath=%s", s.zonepath)
	line("set autoboot=false")
	line("set ip-type=exclusive")
	line("add net")
	line("set physical=%s", s.vnic)
	line("set allowed-address=%s/%d", s.network.IP, s.network.PrefixLength)
	line("set defrouter=%s", s.network.Gateway)
	line("end")
	if s.ncpus != "" {
		line("add capped-cpu")
		line("set ncpus=%s", s.ncpus)
		line("end")
	}
	if s.memory != "" {
		line("add capped-memory")
		line("set physical=%s", s.memory)
		line("set swap=%s", s.memory)
		line("end")
	}
	for _, v := range s.volumes {
		line("add fs")
		line("set dir=%s", v.mountPath)
		line("set special=%s", v.mountpoint)
		line("set type=lofs")
		line("end")
	}
	if s.brand == BrandLX {
		attr(line, "kernel-version", cfg.LXKernelVersion)
	}
	// Who the zone belongs to, for an operator reading zonecfg info.
	attr(line, "herd-pod", s.pod)
	attr(line, "herd-uid", s.uid)
	line("verify")
	line("commit")
	return b.String()
}

func attr(line func(string, ...any), name, value string) {
	line("add attr")
	line("set name=%s", name)
	line("set type=string")
	line("set value=%s", zonecfgQuote(value))
	line("end")
}

// zonecfgQuote quotes a value for zonecfg when it holds anything beyond
// the characters its lexer takes bare.
func zonecfgQuote(v string) string {
	if v != "" && strings.Trim(v, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:") == "" {
		return v
	}
	return `"` + strings.ReplaceAll(v, `"`, `\"`) + `"`
}
