package illumos_test

import (
	"slices"
	"strings"
	"testing"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/illumos"
	"herd/adapters/illumos/illumostest"
)

// TestTheRuntimeUsesTheDatasetsAndEtherstubItIsGiven runs a pod's life on
// a host set up with --zones-dataset, --images-dataset and
// --etherstub-name, and reads what zfs, zonecfg and dladm were told.
func TestTheRuntimeUsesTheDatasetsAndEtherstubItIsGiven(t *testing.T) {
	cfg := config()
	cfg.ZonesDataset, cfg.ImagesDataset, cfg.Etherstub = "rpool/fast/zones", "rpool/images", "podstub7"
	host := illumostest.NewHost()
	rt, err := illumos.New(cfg, host, clocktesting.NewFakeClock(t0))
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	pod := zonePod("web", nil)
	zone := illumos.ZoneName(pod)
	if err := rt.Provision(t.Context(), pod); err != nil {
		t.Fatal(err)
	}
	if err := rt.Deprovision(t.Context(), pod); err != nil {
		t.Fatal(err)
	}
	got := strings.Split(host.Transcript(), "\n")
	for _, want := range []string{
		"zfs create -p rpool/fast/zones",
		"zfs create -p -o mountpoint=/var/lib/herd/images rpool/images",
		"dladm create-etherstub podstub7",
		"dladm create-vnic -l podstub7 " + illumos.VNICName(pod),
		"zfs create -o mountpoint=/rpool/herd/zones/" + zone + " rpool/fast/zones/" + zone,
		"set zonepath=/rpool/herd/zones/" + zone,
		"zfs destroy -r rpool/fast/zones/" + zone,
	} {
		if !slices.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, host.Transcript())
		}
	}
	if slices.Contains(host.Datasets(), "rpool/herd/zones/"+zone) {
		t.Errorf("the zone's dataset was made under rpool/herd/zones, not --zones-dataset")
	}
	host.Forget()
	if err := rt.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	if m := mutating(host.Commands()); len(m) != 0 {
		t.Errorf("a second start changed the host: %v", m)
	}
}
