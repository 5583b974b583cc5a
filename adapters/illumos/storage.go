package illumos

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Storage is the ZFS storage engine: herd's datasets in one pool. At start
// it makes the base datasets (<pool>/herd mounted at Root, and zones,
// volumes and persistent under it); per pod it makes the zone's own dataset
// (its zonepath, with the pod's ephemeral-storage limit as quota) and one
// dataset per volume. A pod's ephemeral volumes go with it; persistent
// volumes stay in <pool>/herd/persistent/<namespace>/<volume> for the next
// pod that asks for them.
type Storage struct {
	cfg Config
	run Runner
}

// NewStorage returns the storage engine of cfg's pool.
func NewStorage(cfg Config, run Runner) *Storage {
	cfg.setDefaults()
	return &Storage{cfg: cfg, run: run}
}

// Init makes the base datasets that are missing. A pool that does not
// exist fails it, naming the pool.
func (s *Storage) Init(ctx context.Context) error {
	out, err := s.run.Run(ctx, Command{Name: "zfs", Args: []string{"list", "-H", "-o", "name", "-t", "filesystem", "-d", "2", s.cfg.StoragePool}})
	if err != nil {
		return fmt.Errorf("storage pool %s: %w", s.cfg.StoragePool, err)
	}
	have := parseLines(out)
	base := []Command{
		{Name: "zfs", Args: []string{"create", "-o", "mountpoint=" + s.cfg.Root, s.cfg.baseDataset()}},
		{Name: "zfs", Args: []string{"create", s.cfg.herdZonesDataset()}},
		{Name: "zfs", Args: []string{"create", s.cfg.volumesDataset()}},
		{Name: "zfs", Args: []string{"create", s.cfg.persistentDataset()}},
	}
	for _, c := range base {
		if slices.Contains(have, c.Args[len(c.Args)-1]) {
			continue
		}
		if _, err := s.run.Run(ctx, c); err != nil {
			return fmt.Errorf("storage: %w", err)
		}
	}
	if s.cfg.ownZonesDataset() {
		if err := s.ensureDataset(ctx, "--zones-dataset", s.cfg.zonesDataset()); err != nil {
			return err
		}
	}
	if s.cfg.ImagesDataset != "" {
		if err := s.ensureDataset(ctx, "--images-dataset", s.cfg.ImagesDataset, "-o", "mountpoint="+s.cfg.ImageDir); err != nil {
			return err
		}
	}
	return nil
}

// ensureDataset makes a dataset an operator named by flag, with its
// parents and the options given, unless it exists.
func (s *Storage) ensureDataset(ctx context.Context, flag, ds string, opts ...string) error {
	_, err := s.run.Run(ctx, Command{Name: "zfs", Args: []string{"list", "-H", "-o", "name", "-t", "filesystem", "-d", "0", ds}})
	var ee *ExitError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &ee) || !strings.Contains(ee.Stderr, "does not exist"):
		return fmt.Errorf("%s %s: %w", flag, ds, err)
	}
	args := append(append([]string{"create", "-p"}, opts...), ds)
	if _, err := s.run.Run(ctx, Command{Name: "zfs", Args: args}); err != nil {
		return fmt.Errorf("%s %s: %w", flag, ds, err)
	}
	return nil
}

// datasets lists every filesystem under <pool>/herd, and under
// --zones-dataset when that lies elsewhere.
func (s *Storage) datasets(ctx context.Context) (map[string]bool, error) {
	roots := []string{s.cfg.baseDataset()}
	if s.cfg.ownZonesDataset() && !within(s.cfg.zonesDataset(), s.cfg.baseDataset()) {
		roots = append(roots, s.cfg.zonesDataset())
	}
	have := map[string]bool{}
	for _, root := range roots {
		out, err := s.run.Run(ctx, Command{Name: "zfs", Args: []string{"list", "-H", "-o", "name", "-t", "filesystem", "-r", root}})
		if err != nil {
			return nil, fmt.Errorf("storage: %w", err)
		}
		for _, l := range parseLines(out) {
			have[l] = true
		}
	}
	return have, nil
}

// ensure makes the pod's datasets that do not exist yet.
func (s *Storage) ensure(ctx context.Context, z zoneSpec) error {
	have, err := s.datasets(ctx)
	if err != nil {
		return err
	}
	if !have[z.dataset] {
		args := []string{"create"}
		if s.cfg.ownZonesDataset() {
			args = append(args, "-o", "mountpoint="+z.zonepath)
		}
		if z.quota > 0 {
			args = append(args, "-o", "quota="+sizeString(z.quota))
		}
		if _, err := s.run.Run(ctx, Command{Name: "zfs", Args: append(args, z.dataset)}); err != nil {
			return fmt.Errorf("storage for zone %s: %w", z.zone, err)
		}
	}
	// zoneadm refuses a zonepath that others can read. Done every time the
	// zone is not installed yet, not only when the dataset is made: a crash
	// between the two would leave it readable.
	if _, err := s.run.Run(ctx, Command{Name: "chmod", Args: []string{"700", z.zonepath}}); err != nil {
		return fmt.Errorf("storage for zone %s: %w", z.zone, err)
	}
	for _, v := range z.volumes {
		if have[v.dataset] {
			continue
		}
		args := []string{"create", "-p"}
		if v.quota > 0 {
			args = append(args, "-o", "quota="+sizeString(v.quota))
		}
		if _, err := s.run.Run(ctx, Command{Name: "zfs", Args: append(args, v.dataset)}); err != nil {
			return fmt.Errorf("volume %s of zone %s: %w", v.name, z.zone, err)
		}
	}
	return nil
}

// remove destroys a zone's dataset and its ephemeral volumes, whatever of
// them exists; persistent volumes stay.
func (s *Storage) remove(ctx context.Context, zone string) error {
	have, err := s.datasets(ctx)
	if err != nil {
		return err
	}
	for _, ds := range []string{s.cfg.zonesDataset() + "/" + zone, s.cfg.volumesDataset() + "/" + zone} {
		if !have[ds] {
			continue
		}
		if _, err := s.run.Run(ctx, Command{Name: "zfs", Args: []string{"destroy", "-r", ds}}); err != nil {
			return fmt.Errorf("storage of zone %s: %w", zone, err)
		}
	}
	return nil
}

// PersistentVolumes lists the persistent volumes kept in the pool, as
// "namespace/volume".
func (s *Storage) PersistentVolumes(ctx context.Context) ([]string, error) {
	have, err := s.datasets(ctx)
	if err != nil {
		return nil, err
	}
	prefix := s.cfg.persistentDataset() + "/"
	var out []string
	for ds := range have {
		if rest, ok := strings.CutPrefix(ds, prefix); ok && strings.Count(rest, "/") == 1 {
			out = append(out, rest)
		}
	}
	slices.Sort(out)
	return out, nil
}
