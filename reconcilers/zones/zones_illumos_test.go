package zones

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/adapters/illumos"
	"herd/adapters/illumos/illumostest"
	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// crashing is a simulated illumos host on which herd dies at one command:
// the command does not complete (an install leaves its zone incomplete, as
// an interrupted `zoneadm install` does) and herd's context ends with it.
type crashing struct {
	*illumostest.Host
	at     string
	cancel context.CancelFunc
}

func (c *crashing) Run(ctx context.Context, cmd illumos.Command) ([]byte, error) {
	if c.at != "" && strings.HasPrefix(cmd.String(), c.at) {
		c.at = ""
		c.Host.FailNext(cmd.String(), "killed")
		_, _ = c.Host.Run(ctx, cmd)
		c.cancel()
		return nil, context.Canceled
	}
	return c.Host.Run(ctx, cmd)
}

// withZones makes the fixture's nodes run their pods as zones on a
// simulated illumos host.
func (f *fixture) withZones(t *testing.T) *crashing {
	t.Helper()
	host := &crashing{Host: illumostest.NewHost()}
	rt, err := illumos.New(illumos.DefaultConfig(), host, f.Clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	f.runtime = rt
	return host
}

// zonePod is a sparse-zone pod on zone-01 with an address.
func (f *fixture) zonePod(name string) domain.Pod {
	return f.addressed(name, reconcilerstest.CreatePod(name, "zone-01", 30), "10.88.0.2")
}

func TestAZoneThatVanishesOrStopsFailsItsPod(t *testing.T) {
	tests := []struct {
		name        string
		change      func(h *illumostest.Host, zone string)
		wantReason  string
		wantMessage string
	}{
		{
			name:        "the zone was deleted behind herd's back",
			change:      func(h *illumostest.Host, zone string) { h.RemoveZone(zone) },
			wantReason:  ReasonRuntimeVanished,
			wantMessage: "node zone-01's runtime no longer holds the pod: it vanished while running",
		},
		{
			name:        "the zone was halted by an operator",
			change:      func(h *illumostest.Host, zone string) { h.SetZoneState(zone, "installed") },
			wantReason:  ReasonRuntimeStopped,
			wantMessage: "the runtime reports the pod stopped, and nobody asked it to",
		},
		{
			name:        "the zone is going down",
			change:      func(h *illumostest.Host, zone string) { h.SetZoneState(zone, "down") },
			wantReason:  ReasonRuntimeStopped,
			wantMessage: "the runtime reports the pod stopped, and nobody asked it to",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			host := f.withZones(t)
			f.ReadyNode("zone-01", nil)
			p := f.zonePod("web")
			f.reconcile(t, reconcilerstest.PodKey("web"))
			if got, _ := f.GetPod("web"); got.Status.Phase != domain.PodRunning {
				t.Fatalf("not running: %+v", got.Status)
			}
			// A resync while all is well changes nothing.
			f.reconcile(t, reconcilerstest.PodKey("web"))
			tt.change(host.Host, illumos.ZoneName(p))
			keys, err := f.r.Resync(t.Context())
			if err != nil || !cmp.Equal(reconcilerstest.Strings(keys), []string{"pod/default/web"}) {
				t.Fatalf("resync: %v %v", keys, err)
			}
			f.SetTime(30)
			f.reconcile(t, keys[0])
			got, _ := f.GetPod("web")
			if got.Status.Phase != domain.PodFailed || got.Status.Reason != tt.wantReason || got.Status.Message != tt.wantMessage {
				t.Errorf("status: %s %q %q, want Failed %q %q", got.Status.Phase, got.Status.Reason, got.Status.Message, tt.wantReason, tt.wantMessage)
			}
			if diff := cmp.Diff([]string{"PodCreated", "PodScheduled", "PodIPAssigned", "PodStatusUpdated", "PodStatusUpdated"}, f.PodTypes("web")); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestACrashMidProvisioningResumesWithoutASecondZoneOrVNIC(t *testing.T) {
	probe := domain.Pod{Namespace: "default", Name: "web", UID: "uid-web"}
	zone, vnic := illumos.ZoneName(probe), illumos.VNICName(probe)
	for _, at := range []string{
		"dladm create-vnic -l herdstub0 " + vnic,
		"zfs create rpool/herd/zones/" + zone,
		"chmod 700",
		"zonecfg -z " + zone,
		"zoneadm -z " + zone + " install",
		"zoneadm -z " + zone + " boot",
	} {
		t.Run(at, func(t *testing.T) {
			f := newFixture(t)
			host := f.withZones(t)
			f.ReadyNode("zone-01", nil)
			f.zonePod("web")
			ctx, cancel := context.WithCancel(t.Context())
			host.at, host.cancel = at, cancel
			if _, err := f.r.Reconcile(ctx, reconcilerstest.PodKey("web")); err == nil {
				t.Fatal("herd died mid-provisioning, yet the reconcile succeeded")
			}
			if got, _ := f.GetPod("web"); got.Status.Phase != domain.PodPending {
				t.Fatalf("a crash was reported as the pod's fate: %+v", got.Status)
			}
			// herd starts again: the resync finds the pod and resumes.
			keys, err := f.r.Resync(t.Context())
			if err != nil || !cmp.Equal(reconcilerstest.Strings(keys), []string{"pod/default/web"}) {
				t.Fatalf("resync: %v %v", keys, err)
			}
			f.reconcile(t, keys[0])
			got, _ := f.GetPod("web")
			if got.Status.Phase != domain.PodRunning || got.Status.PodIP != "10.88.0.2" {
				t.Errorf("after the restart: %s with IP %q", got.Status.Phase, got.Status.PodIP)
			}
			if diff := cmp.Diff([]string{zone}, host.ZoneNames()); diff != "" {
				t.Errorf("zones (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{illumos.GatewayVNICName("10.88.0.0/16"), vnic}, host.VNICs()); diff != "" {
				t.Errorf("VNICs (-want +got):\n%s", diff)
			}
			if state, _ := host.ZoneState(zone); state != "running" {
				t.Errorf("zone %s", state)
			}
		})
	}
}
