package features

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"

	"herd/projections"
)

func (w *world) registerIPAMSteps(sc *godog.ScenarioContext) {
	sc.Step(`^herd hands out pod addresses from (.+)$`, w.podCIDRs)
	sc.Step(`^pod "([^"/]+)/([^"]+)" is created on node "([^"]+)"$`, w.podCreatedOn)
	sc.Step(`^pod "([^"/]+)/([^"]+)" is created without a node$`, w.podCreatedUnbound)
	sc.Step(`^pod "([^"/]+)/([^"]+)" has IP "([^"]+)"$`, w.podHasIP)
	sc.Step(`^pod "([^"/]+)/([^"]+)" has no IP$`, w.podHasNoIP)
	sc.Step(`^pod "([^"/]+)/([^"]+)" is (\w+) with condition ([\w./]+) (\w+): "([^"]*)"$`, w.podPhaseAndCondition)
	sc.Step(`^the addresses in use are:$`, w.addressesInUse)
	sc.Step(`^herd is started with pod addresses from (.+)$`, w.startWithPools)
	sc.Step(`^herd refuses to start, saying "([^"]+)"$`, w.refusesToStart)
}

// quotedList reads `"10.88.0.0/30"` or `"10.88.0.0/30" and "10.89.0.0/30"`.
func quotedList(list string) []string {
	var out []string
	for _, p := range strings.Split(strings.ReplaceAll(list, " and ", ","), ",") {
		out = append(out, strings.Trim(strings.TrimSpace(p), `"`))
	}
	return out
}

// podCIDRs restarts herd with other pools.
func (w *world) podCIDRs(list string) error {
	w.cfg.IPAM.Pools = quotedList(list)
	return w.restart(context.Background())
}

// startWithPools stops herd and starts it again with other pools,
// keeping what stopped it from starting, if anything did.
func (w *world) startWithPools(list string) error {
	w.cfg.IPAM.Pools = quotedList(list)
	w.startErr = w.restart(context.Background())
	return nil
}

func (w *world) refusesToStart(text string) error {
	if w.startErr == nil {
		return errors.New("herd started")
	}
	if !strings.Contains(w.startErr.Error(), text) {
		return fmt.Errorf("herd refused to start saying %q, want it to say %q", w.startErr.Error(), text)
	}
	return nil
}

func (w *world) podCreatedOn(ns, name, node string) error {
	p := basicPod(ns + "/" + name)
	p.Spec.NodeName = node
	if err := w.postPod(p); err != nil {
		return err
	}
	return w.accepted()
}

func (w *world) podCreatedUnbound(ns, name string) error {
	return w.podCreatedOn(ns, name, "")
}

func (w *world) podHasIP(ns, name, ip string) error {
	p, err := w.pod(ns + "/" + name)
	if err != nil {
		return err
	}
	if p.Status.PodIP != ip {
		return fmt.Errorf("pod %s/%s has IP %q, want %q", ns, name, p.Status.PodIP, ip)
	}
	return nil
}

func (w *world) podHasNoIP(ns, name string) error {
	return w.podHasIP(ns, name, "")
}

// podPhaseAndCondition checks the pod's phase and one of its conditions,
// whose message must contain text.
func (w *world) podPhaseAndCondition(ns, name, phase, condition, status, text string) error {
	ref := ns + "/" + name
	if err := w.podIsPhase(ref, phase); err != nil {
		return err
	}
	c, err := w.podCondition(ref, condition)
	if err != nil {
		return err
	}
	if string(c.Status) != status || !strings.Contains(c.Message, text) {
		return fmt.Errorf("pod %s: %s is %s %q, want %s %q", ref, condition, c.Status, c.Message, status, text)
	}
	return nil
}

// addressesInUse compares the IPAM view with a table of pool, address and
// pod, in the view's order (by pool, then address).
func (w *world) addressesInUse(t *godog.Table) error {
	rows, err := tableRows(t, "pool", "address", "pod")
	if err != nil {
		return err
	}
	all, err := projections.NewIPAMView(w.log).Allocations(context.Background())
	if err != nil {
		return err
	}
	var want, got []string
	for _, r := range rows {
		want = append(want, r["pool"]+" "+r["address"]+" "+r["pod"])
	}
	for _, a := range all {
		got = append(got, a.Pool+" "+a.Address+" "+a.Namespace+"/"+a.Name)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("addresses in use (-want +got):\n%s", diff)
	}
	return nil
}
