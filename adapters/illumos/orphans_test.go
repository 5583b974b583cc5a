package illumos_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/adapters/illumos"
	"herd/domain"
)

func TestRemoveOrphansTakesOnlyWhatHerdMadeForPodsThatAreGone(t *testing.T) {
	rt, host, _ := newRuntime(t, config())
	ctx := t.Context()
	live := zonePod("web", nil)
	ghost := zonePod("ghost", &domain.ZoneSpec{Brand: "lx", Image: "ubuntu.tar.xz", Volumes: []domain.ZoneVolume{
		{Name: "scratch", MountPath: "/scratch", SizeBytes: 1 << 30},
		{Name: "data", MountPath: "/data", Persistent: true, SizeBytes: 1 << 30},
	}})
	ghost.Network.IP = "10.88.0.3"
	for _, p := range []domain.Pod{live, ghost} {
		if err := rt.Provision(ctx, p); err != nil {
			t.Fatal(err)
		}
		if _, err := rt.Start(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	// What an operator made: a zone whose name starts "herd-" but is not
	// of herd's shape, a VNIC and a dataset of their own.
	for _, c := range []illumos.Command{
		{Name: "zonecfg", Args: []string{"-z", "herd-notes", "-f", "/dev/stdin"}, Stdin: "create -b\nset brand=sparse\nset zonepath=/zones/notes\ncommit\n"},
		{Name: "dladm", Args: []string{"create-vnic", "-l", "e1000g0", "vnic5"}},
		{Name: "zfs", Args: []string{"create", "rpool/herd/zones/notes"}},
	} {
		if _, err := host.Run(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	zonesBefore, vnicsBefore, datasetsBefore := host.ZoneNames(), host.VNICs(), host.Datasets()

	removed, err := rt.RemoveOrphans(ctx, func(context.Context) ([]domain.Pod, error) { return []domain.Pod{live}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if err := failures(removed); err != nil {
		t.Fatal(err)
	}
	zone := illumos.ZoneName(ghost)
	want := []illumos.Removed{
		{Kind: illumos.OrphanZone, Name: zone},
		{Kind: illumos.OrphanVNIC, Name: illumos.VNICName(ghost)},
		{Kind: illumos.OrphanDataset, Name: "rpool/herd/volumes/" + zone},
		{Kind: illumos.OrphanDataset, Name: "rpool/herd/zones/" + zone},
	}
	if diff := cmp.Diff(want, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		what          string
		before, after []string
		gone          []string
	}{
		{"zones", zonesBefore, host.ZoneNames(), []string{zone}},
		{"VNICs", vnicsBefore, host.VNICs(), []string{illumos.VNICName(ghost)}},
		{"datasets", datasetsBefore, host.Datasets(), []string{"rpool/herd/volumes/" + zone, "rpool/herd/volumes/" + zone + "/scratch", "rpool/herd/zones/" + zone}},
	} {
		kept := slices.DeleteFunc(slices.Clone(c.before), func(s string) bool { return slices.Contains(c.gone, s) })
		if diff := cmp.Diff(kept, c.after); diff != "" {
			t.Errorf("%s left (-want +got):\n%s", c.what, diff)
		}
	}
	if state, _ := host.ZoneState(illumos.ZoneName(live)); state != "running" {
		t.Errorf("the live pod's zone is %s, want running", state)
	}

	// A second pass finds nothing; a failed listing of the pods removes
	// nothing.
	if again, err := rt.RemoveOrphans(ctx, func(context.Context) ([]domain.Pod, error) { return []domain.Pod{live}, nil }); err != nil || len(again) != 0 {
		t.Errorf("second pass: %v, %v; want nothing", again, err)
	}
	if got, err := rt.RemoveOrphans(ctx, func(context.Context) ([]domain.Pod, error) { return nil, context.DeadlineExceeded }); err == nil || len(got) != 0 {
		t.Errorf("with no pod list: %v, %v; want an error and nothing removed", got, err)
	}
	if state, _ := host.ZoneState(illumos.ZoneName(live)); state != "running" {
		t.Errorf("the live pod's zone is %s after a failed pod listing, want running", state)
	}
}

// failures joins the errors of the removals that failed.
func failures(removed []illumos.Removed) error {
	var errs []error
	for _, r := range removed {
		if r.Err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %w", r.Kind, r.Name, r.Err))
		}
	}
	return errors.Join(errs...)
}
