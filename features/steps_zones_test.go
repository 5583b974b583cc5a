package features

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/cucumber/godog"
	"go.uber.org/fx"
	"sigs.k8s.io/yaml"

	"herd/adapters/conversions"
	"herd/adapters/host"
	"herd/adapters/illumos"
	"herd/adapters/illumos/illumostest"
	"herd/cmd/herd/app"
	"herd/domain"
)

// zoneHost is the simulated illumos host a scenario's own node runs its
// zones on, kept across restarts of herd as a real host would be.
type zoneHost struct {
	*illumostest.Host
	// mark is how many of the host's commands earlier steps have looked
	// at already.
	mark int
	// uids remembers each pod's UID, which its zone's names derive from,
	// for after the pod is gone.
	uids map[string]string
}

// Steps about herd's own node running its pods as zones on a simulated
// illumos host (herd serve --local-node NAME --runtime illumos).
func (w *world) registerZoneSteps(sc *godog.ScenarioContext) {
	sc.Step(`^herd runs its own host as node "([^"]+)", its pods as zones$`, w.runsOwnHostAsZones)
	sc.Step(`^pod "([^"]+)" runs as a zone on "([^"]+)"$`, w.podRunsAsZone)
	sc.Step(`^the host ran, for the zone of pod "([^"]+)":$`, w.hostRan)
	sc.Step(`^the zone of pod "([^"]+)" was configured with:$`, w.zoneConfiguredWith)
	sc.Step(`^the zone of pod "([^"]+)" ignores shutdown$`, w.zoneIgnoresShutdown)
	sc.Step(`^an operator (deletes|halts) the zone of pod "([^"]+)" behind herd's back$`, w.operatorTouchesZone)
	sc.Step(`^herd goes down while it installs the zone of pod "([^"]+)", created on "([^"]+)" with:$`, w.goesDownWhileInstalling)
	sc.Step(`^the host has exactly one zone and one VNIC for pod "([^"]+)", and the zone is (\w+)$`, w.hostHasOneZone)
	sc.Step(`^the host has nothing left of pod "([^"]+)"$`, w.hostHasNothingOf)
	sc.Step(`^pod "([^"]+)" failed with reason (\w+): "(.*)"$`, w.podFailedWith)
	sc.Step(`^pod "([^"]+)" runs with IP "([^"]+)"$`, w.podRunsWithIP)
}

// nodeHost is the host facts and metrics a scenario's own node reports.
type nodeHost struct {
	mu sync.Mutex
	// facts is what the host is.
	facts host.Facts
	// metrics is what it reports next.
	metrics domain.Metrics
}

var _ host.Source = (*nodeHost)(nil)

func newNodeHost(os string) *nodeHost {
	return &nodeHost{
		facts: host.Facts{Hostname: "host-01", CPUs: 8, MemoryBytes: 32 << 30, KernelVersion: "joyent_20260301T000000Z",
			OSImage: "OmniOS r151056", OperatingSystem: os, Architecture: "amd64", BootID: "boot-1", MachineID: "machine-1"},
		metrics: domain.Metrics{CPUCount: 8, Load1: 0.5, Load5: 0.5, Load15: 0.5, MemoryTotalBytes: 32 << 30, MemoryAvailableBytes: 16 << 30,
			DiskTotalBytes: 100 << 30, DiskAvailableBytes: 60 << 30, PIDsMax: 30000, PIDsCurrent: 300},
	}
}

func (h *nodeHost) Facts(context.Context) (host.Facts, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.facts, nil
}

func (h *nodeHost) Metrics(context.Context) (domain.Metrics, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.metrics, nil
}

// zoneOptions swap the host's commands and metrics for the simulated
// host's, when the scenario's herd runs its own host.
func (w *world) zoneOptions() []fx.Option {
	var opts []fx.Option
	if w.zones != nil {
		opts = append(opts, fx.Decorate(func(illumos.Runner) illumos.Runner { return w.zones }))
	}
	if w.cfg.LocalNode.Name != "" {
		src := newNodeHost("illumos")
		opts = append(opts, fx.Decorate(func(host.Source) host.Source { return src }))
	}
	return opts
}

func (w *world) runsOwnHostAsZones(node string) error {
	w.zones = &zoneHost{Host: illumostest.NewHost(), uids: map[string]string{}}
	cfg := app.DefaultNodeConfig()
	cfg.Name, cfg.Runtime = node, app.RuntimeIllumos
	cfg.Illumos.CustomBrands = []string{"pkgsrc"}
	w.cfg.LocalNode = cfg
	if err := w.restart(context.Background()); err != nil {
		return err
	}
	// What preparing the host took is not the pods' business.
	w.zones.mark = len(w.zones.Commands())
	return w.nodeIsReady(node, "Ready")
}

// zonePod is the domain pod the zone's names derive from: namespace, name
// and UID, remembered for when the pod is gone.
func (w *world) zonePod(ref string) (domain.Pod, error) {
	ns, name := podRef(ref)
	if w.zones == nil {
		return domain.Pod{}, errors.New("herd runs no host of its own in this scenario")
	}
	if uid, ok := w.zones.uids[ref]; ok {
		return domain.Pod{Namespace: ns, Name: name, UID: uid}, nil
	}
	p, err := w.pod(ref)
	if err != nil {
		return domain.Pod{}, err
	}
	w.zones.uids[ref] = string(p.UID)
	return domain.Pod{Namespace: ns, Name: name, UID: string(p.UID)}, nil
}

func (w *world) podRunsAsZone(ref, node string) error {
	if err := w.podRunsOn(ref, node, ""); err != nil {
		return err
	}
	if _, err := w.zonePod(ref); err != nil {
		return err
	}
	w.zones.mark = len(w.zones.Commands())
	return nil
}

// hostRan compares the commands that changed the host since the last
// look with the script in the step, in which ZONE, VNIC and GATEWAY stand
// for the pod's zone, its VNIC and its pool's gateway VNIC.
func (w *world) hostRan(ref string, doc *godog.DocString) error {
	p, err := w.zonePod(ref)
	if err != nil {
		return err
	}
	cmds := w.zones.Commands()
	var got []string
	for _, c := range cmds[w.zones.mark:] {
		s := c.String()
		if strings.Contains(s, " list") || strings.Contains(s, " show-") {
			continue
		}
		got = append(got, w.placeholders(p, s))
	}
	w.zones.mark = len(cmds)
	want := strings.Split(strings.TrimSpace(doc.Content), "\n")
	for i := range want {
		want[i] = strings.TrimSpace(want[i])
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		return fmt.Errorf("the host ran:\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	return nil
}

func (w *world) placeholders(p domain.Pod, s string) string {
	return strings.NewReplacer(illumos.ZoneName(p), "ZONE", illumos.VNICName(p), "VNIC",
		illumos.GatewayVNICName("10.88.0.0/16"), "GATEWAY", p.UID, "UID").Replace(s)
}

// zoneConfiguredWith compares the zonecfg command file of the pod's zone.
func (w *world) zoneConfiguredWith(ref string, doc *godog.DocString) error {
	p, err := w.zonePod(ref)
	if err != nil {
		return err
	}
	zone := illumos.ZoneName(p)
	for _, c := range w.zones.Commands() {
		if c.Name == "zonecfg" && len(c.Args) == 4 && c.Args[1] == zone && c.Args[2] == "-f" {
			got, want := strings.TrimSpace(w.placeholders(p, c.Stdin)), strings.TrimSpace(doc.Content)
			if got != want {
				return fmt.Errorf("zone %s was configured with:\n%s\nwant\n%s", zone, got, want)
			}
			return nil
		}
	}
	return fmt.Errorf("zone %s was never configured", zone)
}

func (w *world) zoneIgnoresShutdown(ref string) error {
	p, err := w.zonePod(ref)
	if err != nil {
		return err
	}
	w.zones.IgnoreShutdown(illumos.ZoneName(p))
	return nil
}

func (w *world) operatorTouchesZone(what, ref string) error {
	p, err := w.zonePod(ref)
	if err != nil {
		return err
	}
	zone := illumos.ZoneName(p)
	if _, ok := w.zones.ZoneState(zone); !ok {
		return fmt.Errorf("the host has no zone %s", zone)
	}
	if what == "deletes" {
		w.zones.RemoveZone(zone)
	} else {
		w.zones.SetZoneState(zone, "installed")
	}
	return nil
}

// goesDownWhileInstalling creates the pod and stops herd while the
// pod's zone is being installed, then starts herd again: as far as the
// host and the log can tell, herd crashed mid-provisioning.
func (w *world) goesDownWhileInstalling(ref, node string, doc *godog.DocString) error {
	ns, name := podRef(ref)
	hang := w.zones.HangNext("zoneadm -z herd-" + ns + "." + name + "-")
	p := basicPod(ref)
	data, err := yaml.YAMLToJSON([]byte(doc.Content))
	if err != nil {
		return fmt.Errorf("the pod in the step is not YAML: %w", err)
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	p.Spec.NodeName = node
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	r, err := w.do(http.MethodPost, podsURL(ns), "application/json", body)
	if err != nil {
		return err
	}
	if r.code != http.StatusCreated {
		return fmt.Errorf("herd refused the pod: %s", r)
	}
	select {
	case <-hang.Reached():
	case <-time.After(settleTimeout):
		return errors.New("herd never started to install the zone")
	}
	return w.restart(context.Background())
}

func (w *world) hostHasOneZone(ref, state string) error {
	p, err := w.zonePod(ref)
	if err != nil {
		return err
	}
	zone, vnic := illumos.ZoneName(p), illumos.VNICName(p)
	if got := w.zones.ZoneNames(); len(got) != 1 || got[0] != zone {
		return fmt.Errorf("the host has zones %v, want only %s", got, zone)
	}
	if got, _ := w.zones.ZoneState(zone); got != state {
		return fmt.Errorf("zone %s is %s, want %s", zone, got, state)
	}
	n := 0
	for _, v := range w.zones.VNICs() {
		if v == vnic {
			n++
		} else if v != illumos.GatewayVNICName("10.88.0.0/16") {
			return fmt.Errorf("the host has a VNIC %s besides the pod's and the gateway's", v)
		}
	}
	if n != 1 {
		return fmt.Errorf("the pod has %d VNICs", n)
	}
	return nil
}

func (w *world) hostHasNothingOf(ref string) error {
	p, err := w.zonePod(ref)
	if err != nil {
		return err
	}
	zone, vnic := illumos.ZoneName(p), illumos.VNICName(p)
	for _, z := range w.zones.ZoneNames() {
		if z == zone {
			return fmt.Errorf("zone %s is still there", zone)
		}
	}
	for _, v := range w.zones.VNICs() {
		if v == vnic {
			return fmt.Errorf("VNIC %s is still there", vnic)
		}
	}
	for _, d := range w.zones.Datasets() {
		if strings.Contains(d, zone) {
			return fmt.Errorf("dataset %s is still there", d)
		}
	}
	return nil
}

func (w *world) podFailedWith(ref, reason, message string) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	if p.Status.Phase != "Failed" || p.Status.Reason != reason || p.Status.Message != message {
		return fmt.Errorf("pod %s is %s, reason %q: %q; want Failed, %q: %q", ref, p.Status.Phase, p.Status.Reason, p.Status.Message, reason, message)
	}
	return nil
}

func (w *world) podRunsWithIP(ref, ip string) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	if p.Status.Phase != "Running" || p.Status.PodIP != ip || p.Annotations[conversions.AnnotationNetworkIP] != ip {
		return fmt.Errorf("pod %s is %s with IP %q (annotation %q), want Running with %s", ref, p.Status.Phase, p.Status.PodIP,
			p.Annotations[conversions.AnnotationNetworkIP], ip)
	}
	return nil
}
