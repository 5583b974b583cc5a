package kubelet

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"herd/adapters/kubelet/kubelettest"
	"herd/domain"
)

func TestDecodeSpec(t *testing.T) {
	got, err := decodeSpec(readFixture(t, "spec.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := machineSpec{NumCores: 4, MemoryCapacity: 16391180288, MachineID: "0c2b7e4d91a84f3e9d6a5b2c1e0f7a8b",
		SystemUUID: "ec23f1a0-6b9d-2e4c-7a15-0d8e3c9b4f21", BootID: "4e1f7a2c-8d3b-4a6e-9c05-b7d2e1f3a846"}
	if got != want {
		t.Errorf("spec %+v, want %+v", got, want)
	}
	if diff := cmp.Diff(domain.ResourceList{"cpu": 4000, "memory": 16391180288}, got.capacity()); diff != "" {
		t.Errorf("capacity (-want +got):\n%s", diff)
	}
	for _, tt := range []struct{ name, body, err string }{
		{"not JSON", "<html>502</html>", "decode /spec"},
		{"no machine in it", `{"cloud_provider":"AWS"}`, "decode /spec: no num_cores"},
		{"negative cores", `{"num_cores":-2}`, "num_cores -2 is negative"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := decodeSpec([]byte(tt.body)); err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("error %v, want one saying %q", err, tt.err)
			}
		})
	}
}

func TestSpecObservationFillsOnlyWhatTheKubeletGaveNone(t *testing.T) {
	spec := machineSpec{NumCores: 2, MemoryCapacity: 8 << 30, MachineID: "m", SystemUUID: "u", BootID: "b"}
	set := defaultSettings()
	set.Reserved = domain.ResourceList{"cpu": 100}
	got := spec.observation(domain.ResourceList{"memory": 7 << 30, "pods": 110}, set)
	want := domain.ObserveMachine{Capacity: domain.ResourceList{"cpu": 2000}, Allocatable: domain.ResourceList{"cpu": 1900},
		MachineID: "m", SystemUUID: "u", BootID: "b"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("observation (-want +got):\n%s", diff)
	}
}

func TestPollerReadsTheMachineSpec(t *testing.T) {
	k := kubelettest.New("worker-a")
	r := newRig(t, k, serve(t, k), nil)

	// The machine at registration: CPU, which the summary has no figure
	// for, and the machine's identity.
	regs, _, _, _ := r.sink.snapshot()
	if len(regs) != 1 || regs[0].reg.Capacity["cpu"] != kubelettest.Cores*1000 || regs[0].reg.Allocatable["cpu"] != kubelettest.Cores*1000 {
		t.Fatalf("registrations %+v, want one with %d cores", regs, kubelettest.Cores)
	}
	wantInfo := domain.NodeInfo{AgentVersion: kubelettest.Version, MachineID: kubelettest.MachineID, SystemUUID: kubelettest.SystemUUID, BootID: kubelettest.BootID}
	if regs[0].reg.Info != wantInfo {
		t.Errorf("System Info %+v, want %+v", regs[0].reg.Info, wantInfo)
	}
	// For a node herd knew before (registering it again is a no-op), the
	// same told through ObserveMachine: only what the kubelet gave none of.
	want := domain.ObserveMachine{Capacity: domain.ResourceList{"cpu": kubelettest.Cores * 1000},
		Allocatable: domain.ResourceList{"cpu": kubelettest.Cores * 1000},
		MachineID:   kubelettest.MachineID, SystemUUID: kubelettest.SystemUUID, BootID: kubelettest.BootID,
		AgentVersion: kubelettest.Version}
	machines := r.sink.observedMachines()
	if len(machines) != 1 {
		t.Fatalf("%d machines observed, want 1", len(machines))
	}
	if diff := cmp.Diff(want, machines[0]); diff != "" {
		t.Errorf("machine (-want +got):\n%s", diff)
	}

	// Polls go on; the same machine is not told again, and /spec is read
	// at the slow pace only.
	for range specEvery * 3 {
		r.pass(10 * time.Second)
	}
	if n := len(r.sink.observedMachines()); n != 1 {
		t.Errorf("%d machines observed after more polls of the same machine, want 1", n)
	}
	if n := k.Requests("/spec"); n < 2 || n > 3 {
		t.Errorf("/spec read %d times in %d slow polls, want every %d", n, specEvery+1, specEvery)
	}

	// A reboot: a new boot ID, told at once.
	k.Reboot("0b5e3c11-2d4f-4a6b-8c0d-1e2f3a4b5c6d", t0.Add(time.Hour))
	r.pass(10 * time.Second)
	machines = r.sink.observedMachines()
	if len(machines) != 2 || machines[1].BootID != "0b5e3c11-2d4f-4a6b-8c0d-1e2f3a4b5c6d" {
		t.Errorf("machines %+v, want a second with the new boot ID", machines)
	}
}

func TestPollerNamesASpecFailure(t *testing.T) {
	k := kubelettest.New("worker-a")
	k.Respond("/spec", http.StatusForbidden, "Forbidden (user=herd, verb=get, resource=nodes, subresource=spec)")
	r := newRig(t, k, serve(t, k), nil)

	// The node registers and beats without its machine.
	regs, hbs, fails, _ := r.sink.snapshot()
	if len(regs) != 1 || len(hbs) != 1 || len(fails) != 0 {
		t.Fatalf("%d registrations, %d heartbeats, failures %+v; want 1, 1, none", len(regs), len(hbs), fails)
	}
	if _, ok := regs[0].reg.Capacity["cpu"]; ok {
		t.Errorf("capacity %v: without /spec herd does not know the CPUs", regs[0].reg.Capacity)
	}
	if n := testutil.ToFloat64(r.metrics.errors.WithLabelValues("worker-a", endpointSpec, ReasonForbidden)); n != 1 {
		t.Errorf("%v forbidden /spec counted, want 1", n)
	}
	last := r.poller.Status().LastFailure
	if last == nil || last.Endpoint != endpointSpec || !strings.Contains(last.Message, "grant it get on nodes/spec") {
		t.Errorf("last failure %+v, want /spec Forbidden naming nodes/spec", last)
	}

	// It answers later: the next slow poll reads it, since herd has none.
	k.Respond("/spec", 0, "")
	r.pass(30 * time.Second)
	// (The first told only the kubelet's version, from /metrics.)
	if m := r.sink.observedMachines(); len(m) != 2 || m[0].Capacity != nil || m[1].Capacity["cpu"] != kubelettest.Cores*1000 {
		t.Errorf("machines %+v, want the version alone, then the CPUs once /spec answers", m)
	}
}
