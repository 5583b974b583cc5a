package host

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"herd/adapters/illumos"
	"herd/domain"
)

// These read an illumos host through its commands. They build on every
// platform, so that their parsing is tested where herd is developed.

// cpuTicksCommand reads every CPU's cumulative clock ticks by state from
// the cpu:N:sys kstats (the ones mpstat and vmstat sum): kernel and user
// are busy, idle and wait (I/O wait, always 0 on current illumos) are not.
var cpuTicksCommand = illumos.Command{Name: "kstat", Args: []string{"-p",
	"cpu::sys:cpu_ticks_idle", "cpu::sys:cpu_ticks_kernel", "cpu::sys:cpu_ticks_user", "cpu::sys:cpu_ticks_wait"}}

// kstatCPUTicks returns the busy and all ticks of every CPU, summed.
func kstatCPUTicks(ctx context.Context, run illumos.Runner) (busy, all float64, err error) {
	out, err := run.Run(ctx, cpuTicksCommand)
	if err != nil {
		return 0, 0, fmt.Errorf("kstat cpu ticks: %w", err)
	}
	stats, err := illumos.ParseKstat(out)
	if err != nil {
		return 0, 0, err
	}
	seen := 0
	for k, v := range stats {
		_, stat, _ := strings.Cut(strings.TrimPrefix(k, "cpu:"), ":sys:")
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("kstat %s = %q: %w", k, v, err)
		}
		switch stat {
		case "cpu_ticks_kernel", "cpu_ticks_user":
			busy += float64(n)
		case "cpu_ticks_idle", "cpu_ticks_wait":
		default:
			continue
		}
		all += float64(n)
		seen++
	}
	if seen == 0 {
		return 0, 0, fmt.Errorf("kstat: no cpu_ticks in its answer")
	}
	return busy, all, nil
}

// linksCommand lists the host's data links, parsable: link:class:state.
var linksCommand = illumos.Command{Name: "dladm", Args: []string{"show-link", "-p", "-o", "link,class,state"}}

// dladmLinks reads the host's data links and their state (up, down,
// unknown). When the host has physical links or aggregations, only they
// count — the VNICs and etherstubs herd makes for its zones say nothing of
// the host's own network; otherwise every link but an etherstub does (a
// host that reaches the world through a VNIC of its own).
func dladmLinks(ctx context.Context, run illumos.Runner) ([]domain.NetworkLink, error) {
	out, err := run.Run(ctx, linksCommand)
	if err != nil {
		return nil, fmt.Errorf("dladm show-link: %w", err)
	}
	var physical, other []domain.NetworkLink
	for i, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if line == "" {
			continue
		}
		f := strings.Split(line, ":")
		if len(f) != 3 || f[0] == "" {
			return nil, fmt.Errorf("dladm show-link line %d %q: want link:class:state", i+1, line)
		}
		l := domain.NetworkLink{Name: f[0], State: f[2], Up: f[2] == "up"}
		switch f[1] {
		case "phys", "aggr":
			physical = append(physical, l)
		case "etherstub":
		default:
			other = append(other, l)
		}
	}
	if len(physical) > 0 {
		return physical, nil
	}
	return other, nil
}
