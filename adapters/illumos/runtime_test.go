package illumos_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/illumos"
	"herd/adapters/illumos/illumostest"
	"herd/domain"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// zonePod is a bound pod with an address, 1.5 CPUs and 512 MiB, and the
// zone spec given.
func zonePod(name string, zone *domain.ZoneSpec) domain.Pod {
	return domain.Pod{
		Namespace: "default", Name: name, UID: "uid-" + name,
		Spec: domain.PodSpec{NodeName: "zone-01", Zone: zone, Containers: []domain.Container{{
			Name: "app", Limits: domain.ResourceList{"cpu": 1500, "memory": 512 << 20},
		}}},
		Network: &domain.PodNetwork{Pool: "10.88.0.0/16", IP: "10.88.0.2", PrefixLength: 16, Gateway: "10.88.0.1"},
	}
}

func config() illumos.Config {
	cfg := illumos.DefaultConfig()
	cfg.CustomBrands = []string{"pkgsrc"}
	return cfg
}

// newRuntime returns a runtime on a fresh simulated host, initialised, with
// the record of commands cleared.
func newRuntime(t *testing.T, cfg illumos.Config) (*illumos.Runtime, *illumostest.Host, *clocktesting.FakeClock) {
	t.Helper()
	host := illumostest.NewHost()
	clk := clocktesting.NewFakeClock(t0)
	rt, err := illumos.New(cfg, host, clk)
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	host.Forget()
	return rt, host, clk
}

// mutating lists the commands that change the host, rendered.
func mutating(cmds []illumos.Command) []string {
	var out []string
	for _, c := range cmds {
		s := c.String()
		if strings.Contains(s, " list") || strings.Contains(s, " show-") {
			continue
		}
		out = append(out, s)
	}
	return out
}

func TestProvisioningScriptForEachBrand(t *testing.T) {
	direct := config()
	direct.NetworkMode, direct.Link = illumos.NetworkDirect, "e1000g0"
	tests := []struct {
		name string
		cfg  illumos.Config
		pod  domain.Pod
	}{
		{"sparse", config(), zonePod("web", nil)},
		{"lx", config(), zonePod("ubuntu", &domain.ZoneSpec{Brand: "lx", Image: "ubuntu-24.04.tar.xz"})},
		{"custom-brand", config(), zonePod("build", &domain.ZoneSpec{Brand: "pkgsrc", Image: "/images/pkgsrc-2025Q4.tar.gz"})},
		{"volumes", config(), zonePod("db", &domain.ZoneSpec{Brand: "lx", Image: "pg.tar.xz", Volumes: []domain.ZoneVolume{
			{Name: "scratch", MountPath: "/scratch", SizeBytes: 1 << 30},
			{Name: "data", MountPath: "/var/lib/postgresql", Persistent: true, SizeBytes: 20 << 30},
		}})},
		{"direct", direct, zonePod("web", nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, host, _ := newRuntime(t, tt.cfg)
			if err := rt.Provision(t.Context(), tt.pod); err != nil {
				t.Fatal(err)
			}
			st, err := rt.Start(t.Context(), tt.pod)
			if err != nil {
				t.Fatal(err)
			}
			if st.PodIP != "10.88.0.2" || !st.StartedAt.Equal(t0) {
				t.Errorf("status %+v, want the pod's address and herd's clock", st)
			}
			illumos.Golden(t, "provision/"+tt.name+".txt", host.Transcript())
			if state, _ := host.ZoneState(illumos.ZoneName(tt.pod)); state != "running" {
				t.Errorf("zone %s, want running", state)
			}
		})
	}
}

func TestInitPreparesTheHostOnce(t *testing.T) {
	host := illumostest.NewHost()
	rt, err := illumos.New(config(), host, clocktesting.NewFakeClock(t0))
	if err != nil {
		t.Fatal(err)
	}
	if err := rt.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"zfs create -o mountpoint=/rpool/herd rpool/herd",
		"zfs create rpool/herd/zones",
		"zfs create rpool/herd/volumes",
		"zfs create rpool/herd/persistent",
		"dladm create-etherstub herdstub0",
	}
	if diff := cmp.Diff(want, mutating(host.Commands())); diff != "" {
		t.Errorf("first start (-want +got):\n%s", diff)
	}
	host.Forget()
	if err := rt.Init(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got := mutating(host.Commands()); len(got) != 0 {
		t.Errorf("second start changed the host: %v", got)
	}
}

func TestInitNamesWhatIsMissing(t *testing.T) {
	tests := []struct {
		name   string
		change func(*illumos.Config)
		want   string
	}{
		{"no such pool", func(c *illumos.Config) { c.StoragePool = "tank" }, "storage pool tank: zfs list"},
		{"no such link", func(c *illumos.Config) { c.NetworkMode, c.Link = illumos.NetworkDirect, "ixgbe0" }, "--physical-link ixgbe0: no such data link on this host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := config()
			tt.change(&cfg)
			rt, err := illumos.New(cfg, illumostest.NewHost(), clocktesting.NewFakeClock(t0))
			if err != nil {
				t.Fatal(err)
			}
			if err := rt.Init(t.Context()); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestProvisionAgainChangesNothing(t *testing.T) {
	rt, host, _ := newRuntime(t, config())
	p := zonePod("web", nil)
	if err := rt.Provision(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	host.Forget()
	for range 2 {
		if err := rt.Provision(t.Context(), p); err != nil {
			t.Fatal(err)
		}
	}
	if got := mutating(host.Commands()); len(got) != 0 {
		t.Errorf("provisioning again changed the host: %v", got)
	}
}

// TestCrashMidProvisioningResumes interrupts provisioning at every step
// that changes the host, then provisions again, as a restarted agent
// would: the pod ends with one zone, installed, one VNIC and its datasets.
func TestCrashMidProvisioningResumes(t *testing.T) {
	p := zonePod("db", &domain.ZoneSpec{Brand: "lx", Image: "pg.tar.xz", Volumes: []domain.ZoneVolume{{Name: "data", MountPath: "/data"}}})
	p.Spec.Containers[0].Limits["ephemeral-storage"] = 8 << 30
	zone, vnic := illumos.ZoneName(p), illumos.VNICName(p)
	steps := []string{
		"dladm create-vnic -l herdstub0 herdgw",
		"ipadm create-if",
		"ipadm create-addr",
		"dladm create-vnic -l herdstub0 " + vnic,
		"zfs create -o quota=8G",
		"chmod 700",
		"zfs create -p rpool/herd/volumes/",
		"zonecfg -z " + zone,
		"zoneadm -z " + zone + " install",
	}
	for _, step := range steps {
		t.Run(step, func(t *testing.T) {
			rt, host, _ := newRuntime(t, config())
			host.FailNext(step, "the host went away")
			if err := rt.Provision(t.Context(), p); err == nil || !strings.Contains(err.Error(), "the host went away") {
				t.Fatalf("interrupted provisioning: %v", err)
			}
			if err := rt.Provision(t.Context(), p); err != nil {
				t.Fatalf("provisioning after the crash: %v", err)
			}
			if diff := cmp.Diff([]string{zone}, host.ZoneNames()); diff != "" {
				t.Errorf("zones (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]string{vnic, illumos.GatewayVNICName("10.88.0.0/16")}, host.VNICs(), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Errorf("VNICs (-want +got):\n%s", diff)
			}
			if state, _ := host.ZoneState(zone); state != "installed" {
				t.Errorf("zone %s, want installed", state)
			}
			if _, err := rt.Start(t.Context(), p); err != nil {
				t.Errorf("start after recovery: %v", err)
			}
		})
	}
}

func TestInterruptedInstallIsCleanedUpFirst(t *testing.T) {
	rt, host, _ := newRuntime(t, config())
	p := zonePod("web", nil)
	zone := illumos.ZoneName(p)
	host.FailNext("zoneadm -z "+zone+" install", "install interrupted")
	_ = rt.Provision(t.Context(), p)
	if state, _ := host.ZoneState(zone); state != "incomplete" {
		t.Fatalf("zone %s after the failed install, want incomplete", state)
	}
	host.Forget()
	if err := rt.Provision(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"chmod 700 /rpool/herd/zones/" + zone,
		"zoneadm -z " + zone + " uninstall -F",
		"zoneadm -z " + zone + " install",
	}
	if diff := cmp.Diff(want, mutating(host.Commands())); diff != "" {
		t.Errorf("resumed provisioning (-want +got):\n%s", diff)
	}
}

func TestDeprovisionRemovesAllButPersistentVolumes(t *testing.T) {
	rt, host, _ := newRuntime(t, config())
	p := zonePod("db", &domain.ZoneSpec{Brand: "lx", Image: "pg.tar.xz", Volumes: []domain.ZoneVolume{
		{Name: "scratch", MountPath: "/scratch"},
		{Name: "data", MountPath: "/data", Persistent: true},
	}})
	ctx := t.Context()
	if err := rt.Provision(ctx, p); err != nil {
		t.Fatal(err)
	}
	if _, err := rt.Start(ctx, p); err != nil {
		t.Fatal(err)
	}
	host.Forget()
	if err := rt.Deprovision(ctx, p); err != nil {
		t.Fatal(err)
	}
	zone := illumos.ZoneName(p)
	want := []string{
		"zoneadm -z " + zone + " halt",
		"zoneadm -z " + zone + " uninstall -F",
		"zonecfg -z " + zone + " delete -F",
		"dladm delete-vnic " + illumos.VNICName(p),
		"zfs destroy -r rpool/herd/zones/" + zone,
		"zfs destroy -r rpool/herd/volumes/" + zone,
	}
	if diff := cmp.Diff(want, mutating(host.Commands())); diff != "" {
		t.Errorf("deprovision (-want +got):\n%s", diff)
	}
	wantDatasets := []string{"rpool", "rpool/herd", "rpool/herd/persistent", "rpool/herd/persistent/default",
		"rpool/herd/persistent/default/data", "rpool/herd/volumes", "rpool/herd/zones"}
	if diff := cmp.Diff(wantDatasets, host.Datasets()); diff != "" {
		t.Errorf("datasets left (-want +got):\n%s", diff)
	}
	if vols, err := rt.Storage().PersistentVolumes(ctx); err != nil || !cmp.Equal(vols, []string{"default/data"}) {
		t.Errorf("persistent volumes %v %v", vols, err)
	}
	host.Forget()
	if err := rt.Deprovision(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := mutating(host.Commands()); len(got) != 0 {
		t.Errorf("deprovisioning again changed the host: %v", got)
	}
	// The next pod that asks for the volume gets the same dataset back.
	next := p
	next.Name, next.UID = "db-2", "uid-db-2"
	if err := rt.Provision(ctx, next); err != nil {
		t.Fatal(err)
	}
	for _, c := range host.Commands() {
		if strings.Contains(c.String(), "persistent/default/data") {
			t.Errorf("the persistent volume was touched again: %s", c)
		}
	}
}

func TestDeprovisionFinishesAnInterruptedProvisioning(t *testing.T) {
	rt, host, _ := newRuntime(t, config())
	p := zonePod("web", nil)
	host.FailNext("zonecfg", "crash")
	_ = rt.Provision(t.Context(), p)
	if err := rt.Deprovision(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if z := host.ZoneNames(); len(z) != 0 {
		t.Errorf("zones left %v", z)
	}
	if v := host.VNICs(); len(v) != 1 || v[0] != illumos.GatewayVNICName("10.88.0.0/16") {
		t.Errorf("VNICs left %v, want only the pool's gateway", v)
	}
	for _, ds := range host.Datasets() {
		if strings.Contains(ds, illumos.ZoneName(p)) {
			t.Errorf("dataset left: %s", ds)
		}
	}
}

func TestStateFollowsTheZone(t *testing.T) {
	started := zonePod("web", nil)
	started.Status.StartTime = t0
	deleting := zonePod("web", nil)
	deleting.Deletion = &domain.PodDeletion{RequestedAt: t0}
	tests := []struct {
		name string
		pod  domain.Pod
		zone string // "" removes it
		want domain.RuntimePhase
		msg  string
	}{
		{"no zone", zonePod("web", nil), "", domain.RuntimeAbsent, ""},
		{"configured", zonePod("web", nil), "configured", domain.RuntimeProvisioned, ""},
		{"incomplete", zonePod("web", nil), "incomplete", domain.RuntimeProvisioned, ""},
		{"installed, waiting to start", zonePod("web", nil), "installed", domain.RuntimeProvisioned, ""},
		{"installed after running", started, "installed", domain.RuntimeStopped, ""},
		{"installed while being deleted", deleting, "installed", domain.RuntimeStopped, ""},
		{"ready", zonePod("web", nil), "ready", domain.RuntimeProvisioned, ""},
		{"running", started, "running", domain.RuntimeRunning, ""},
		{"shutting down", started, "shutting_down", domain.RuntimeRunning, "the zone is shutting down"},
		{"down", started, "down", domain.RuntimeStopped, "the zone is down and releasing its resources"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, host, _ := newRuntime(t, config())
			if err := rt.Provision(t.Context(), tt.pod); err != nil {
				t.Fatal(err)
			}
			if tt.zone == "" {
				host.RemoveZone(illumos.ZoneName(tt.pod))
			} else {
				host.SetZoneState(illumos.ZoneName(tt.pod), tt.zone)
			}
			st, err := rt.State(t.Context(), tt.pod)
			if err != nil {
				t.Fatal(err)
			}
			if st.Phase != tt.want || st.Message != tt.msg {
				t.Errorf("state %+v, want %s %q (zone %q)", st, tt.want, tt.msg, tt.zone)
			}
		})
	}
}

func TestShutdownHaltAndStartAreIdempotent(t *testing.T) {
	rt, host, _ := newRuntime(t, config())
	ctx := t.Context()
	p := zonePod("web", nil)
	zone := illumos.ZoneName(p)
	if _, err := rt.Start(ctx, p); err == nil || !strings.Contains(err.Error(), "provision the pod first") {
		t.Errorf("start before provisioning: %v", err)
	}
	if err := rt.Provision(ctx, p); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := rt.Start(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	host.Forget()
	for range 2 {
		if err := rt.Shutdown(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"zoneadm -z " + zone + " shutdown"}, mutating(host.Commands())); diff != "" {
		t.Errorf("shutdown twice (-want +got):\n%s", diff)
	}
	if _, err := rt.Start(ctx, p); err != nil {
		t.Fatal(err)
	}
	host.Forget()
	for range 2 {
		if err := rt.Halt(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"zoneadm -z " + zone + " halt"}, mutating(host.Commands())); diff != "" {
		t.Errorf("halt twice (-want +got):\n%s", diff)
	}
	if err := rt.Shutdown(ctx, zonePod("never", nil)); err != nil {
		t.Errorf("shutdown of a pod without a zone: %v", err)
	}
}

func TestUnrunnablePodTouchesNothing(t *testing.T) {
	rt, host, _ := newRuntime(t, config())
	err := rt.Provision(t.Context(), zonePod("web", &domain.ZoneSpec{Brand: "bhyve"}))
	if !errors.Is(err, illumos.ErrUnrunnable) {
		t.Fatalf("error %v, want ErrUnrunnable", err)
	}
	if got := host.Commands(); len(got) != 0 {
		t.Errorf("commands ran for a pod the host cannot run: %v", got)
	}
}

func TestPodsProvisionAtOnce(t *testing.T) {
	rt, host, _ := newRuntime(t, config())
	var wg sync.WaitGroup
	for _, name := range []string{"a", "b", "c", "d"} {
		wg.Go(func() {
			p := zonePod(name, nil)
			if err := rt.Provision(context.Background(), p); err != nil {
				t.Error(err)
			}
			if _, err := rt.Start(context.Background(), p); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := len(host.ZoneNames()); n != 4 {
		t.Errorf("%d zones, want 4", n)
	}
	if n := len(host.VNICs()); n != 5 {
		t.Errorf("%d VNICs, want 4 and the gateway's", n)
	}
}
