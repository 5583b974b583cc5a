package illumos

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"herd/domain"
)

// The shapes of the names herd gives a pod's objects (names.go): only
// objects of these shapes are ever taken for leftovers, so an operator's
// zones, links and datasets — and the pools' gateway VNICs, "herdgw...",
// which no 'w' lets match — are never touched.
var (
	podZoneName = regexp.MustCompile(`^herd-[a-z0-9.-]*-[0-9a-f]{16}$`)
	podVNICName = regexp.MustCompile(`^herd[a-p]{20}0$`)
)

// Orphan kinds, as Removed reports them.
const (
	OrphanZone    = "zone"
	OrphanVNIC    = "vnic"
	OrphanDataset = "dataset"
)

// Removed is one leftover that RemoveOrphans removed, or failed to.
type Removed struct {
	// Kind is zone, vnic or dataset.
	Kind string
	// Name is the zone, link or dataset.
	Name string
	// Err is why it could not be removed; nil when it was.
	Err error
}

// RemoveOrphans removes what herd made on this host for pods that no
// longer exist — their zones, VNICs and datasets (a zone's own and its
// ephemeral volumes; persistent volumes stay, as Deprovision leaves
// them) — as an agent that was down while its pods were deleted finds
// them. The host is read first and the pods (live) after, so that a pod
// created meanwhile is in the list before its objects can be seen. A
// failure to remove one object does not stop the others; each is
// reported.
func (r *Runtime) RemoveOrphans(ctx context.Context, live func(context.Context) ([]domain.Pod, error)) ([]Removed, error) {
	zones, err := r.Zones(ctx)
	if err != nil {
		return nil, err
	}
	vnics, err := r.network.vnics(ctx)
	if err != nil {
		return nil, err
	}
	datasets, err := r.storage.datasets(ctx)
	if err != nil {
		return nil, err
	}
	pods, err := live(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the node's pods: %w", err)
	}
	keepZones, keepVNICs := map[string]bool{}, map[string]bool{}
	for _, p := range pods {
		keepZones[ZoneName(p)], keepVNICs[VNICName(p)] = true, true
	}
	var out []Removed
	for _, z := range zones {
		if podZoneName.MatchString(z.Name) && !keepZones[z.Name] {
			out = append(out, Removed{Kind: OrphanZone, Name: z.Name, Err: r.removeZone(ctx, z.Name)})
		}
	}
	for _, v := range vnics {
		if podVNICName.MatchString(v) && !keepVNICs[v] {
			out = append(out, Removed{Kind: OrphanVNIC, Name: v, Err: r.network.removeVNIC(ctx, v)})
		}
	}
	for _, ds := range r.orphanDatasets(datasets, keepZones) {
		_, err := r.run.Run(ctx, Command{Name: "zfs", Args: []string{"destroy", "-r", ds}})
		out = append(out, Removed{Kind: OrphanDataset, Name: ds, Err: err})
	}
	return out, nil
}

// orphanDatasets are the zone datasets and ephemeral-volume datasets of
// pod zones not in keep, sorted.
func (r *Runtime) orphanDatasets(have map[string]bool, keep map[string]bool) []string {
	var out []string
	for ds := range have {
		for _, parent := range []string{r.cfg.zonesDataset(), r.cfg.volumesDataset()} {
			zone, ok := strings.CutPrefix(ds, parent+"/")
			if ok && !strings.Contains(zone, "/") && podZoneName.MatchString(zone) && !keep[zone] {
				out = append(out, ds)
			}
		}
	}
	slices.Sort(out)
	return out
}

// removeZone deletes a zone by name, under the zone's lock; a zone
// already gone is no error.
func (r *Runtime) removeZone(ctx context.Context, name string) error {
	defer r.locks.lock(name)()
	z, found, err := r.zone(ctx, name)
	if err != nil || !found {
		return err
	}
	return r.deleteZone(ctx, z)
}

// deleteZone halts a zone, uninstalls it (`uninstall -F`) and deletes its
// configuration (`zonecfg delete -F`). The caller holds the zone's lock.
func (r *Runtime) deleteZone(ctx context.Context, z Zone) error {
	if err := r.halt(ctx, z); err != nil {
		return err
	}
	if z.State != ZoneConfigured {
		if err := r.zoneadm(ctx, z.Name, "uninstall", "-F"); err != nil {
			return fmt.Errorf("uninstall zone %s: %w", z.Name, err)
		}
	}
	if _, err := r.run.Run(ctx, Command{Name: "zonecfg", Args: []string{"-z", z.Name, "delete", "-F"}}); err != nil {
		return fmt.Errorf("delete zone %s: %w", z.Name, err)
	}
	return nil
}
