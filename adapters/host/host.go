package host

import (
	"context"

	"herd/domain"
)

// Facts are what a host is, for its registration.
type Facts struct {
	Hostname        string
	CPUs            int
	MemoryBytes     int64
	KernelVersion   string
	OSImage         string
	OperatingSystem string
	Architecture    string
	// BootID changes with every boot, so that herd tells a reboot from
	// a restart of the agent.
	BootID    string
	MachineID string
}

// Source reads a host.
type Source interface {
	Facts(ctx context.Context) (Facts, error)
	Metrics(ctx context.Context) (domain.Metrics, error)
}

// Config says where to look.
type Config struct {
	// DiskPath is a path on the filesystem whose space is the host's disk
	// (Linux; default "/").
	DiskPath string
	// StoragePool is the ZFS pool whose space is the host's disk (illumos;
	// default rpool).
	StoragePool string
}

// DefaultConfig is "/" on Linux and rpool on illumos.
func DefaultConfig() Config { return Config{DiskPath: "/", StoragePool: "rpool"} }
