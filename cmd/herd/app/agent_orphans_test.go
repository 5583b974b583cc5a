package app

import (
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/illumos"
	"herd/adapters/illumos/illumostest"
	"herd/domain"
	"herd/events/eventstest"
)

// TestAnAgentRemovesWhatItLeftForPodsDeletedWhileItWasDown leaves on the
// host the zone, VNIC and dataset of a pod herd no longer knows, as an
// agent that was down while its pod was deleted finds them, beside an
// operator's own zone and VNIC; the agent's start removes the pod's and
// only those.
func TestAnAgentRemovesWhatItLeftForPodsDeletedWhileItWasDown(t *testing.T) {
	url := startServe(t)
	h := illumostest.NewHost()
	before, err := illumos.New(illumos.DefaultConfig(), h, clocktesting.NewFakeClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	ghost := domain.Pod{Namespace: "default", Name: "gone", UID: "uid-gone",
		Spec:    domain.PodSpec{NodeName: "zone-01", Containers: []domain.Container{{Name: "app"}}},
		Network: &domain.PodNetwork{Pool: "10.88.0.0/16", IP: "10.88.0.9", PrefixLength: 16, Gateway: "10.88.0.1"}}
	ctx := t.Context()
	if err := before.Init(ctx); err != nil {
		t.Fatal(err)
	}
	if err := before.Provision(ctx, ghost); err != nil {
		t.Fatal(err)
	}
	if _, err := before.Start(ctx, ghost); err != nil {
		t.Fatal(err)
	}
	for _, c := range []illumos.Command{
		{Name: "zonecfg", Args: []string{"-z", "build", "-f", "/dev/stdin"}, Stdin: "create -b\nset brand=sparse\nset zonepath=/zones/build\ncommit\n"},
		{Name: "dladm", Args: []string{"create-vnic", "-l", "e1000g0", "vnic5"}},
	} {
		if _, err := h.Run(ctx, c); err != nil {
			t.Fatal(err)
		}
	}
	zone := illumos.ZoneName(ghost)

	var ms *MetricsServer
	startApp(t, agentApp(url, h, fx.Populate(&ms)))
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		return !slices.Contains(h.ZoneNames(), zone) && !slices.Contains(h.VNICs(), illumos.VNICName(ghost)) &&
			!slices.Contains(h.Datasets(), "rpool/herd/zones/"+zone)
	}, "the deleted pod's zone, VNIC and dataset are removed; zones %v, VNICs %v", h.ZoneNames(), h.VNICs())
	if z := h.ZoneNames(); !slices.Equal(z, []string{"build"}) {
		t.Errorf("zones %v, want the operator's build alone", z)
	}
	if !slices.Contains(h.VNICs(), "vnic5") || !slices.Contains(h.VNICs(), illumos.GatewayVNICName("10.88.0.0/16")) {
		t.Errorf("VNICs %v, want the operator's vnic5 and the pool's gateway kept", h.VNICs())
	}
	_, body := scrape(t, ms.URL()+"/metrics")
	for _, want := range []string{
		`herd_agent_orphans_removed_total{kind="zone"} 1`,
		`herd_agent_orphans_removed_total{kind="vnic"} 1`,
		`herd_agent_orphans_removed_total{kind="dataset"} 1`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
}
