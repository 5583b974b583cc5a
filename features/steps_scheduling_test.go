package features

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/cucumber/godog"
	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
)

func (w *world) registerSchedulingSteps(sc *godog.ScenarioContext) {
	sc.Step(`^these nodes have registered and are Ready:$`, w.nodesAreReady)
	sc.Step(`^a client creates the pods (.+) requesting (\S+) CPU and (\S+) memory each$`, w.createsPodsRequesting)
	sc.Step(`^the pods are placed like this:$`, w.podsPlaced)
	sc.Step(`^pod "([^"]+)" is Pending, unschedulable: "(.+)"$`, w.podUnschedulable)
}

// nodesAreReady registers one node per row (name, kind, and optionally
// labels, capacity and allocatable) and makes it Ready, as the node itself
// would: an rp2040 posts its Node with a Ready condition to the Kubernetes
// API; the others register through herd's agent and report healthy
// metrics.
func (w *world) nodesAreReady(t *godog.Table) error {
	rows, err := tableRows(t, "name", "kind")
	if err != nil {
		return err
	}
	for _, r := range rows {
		var props [][2]string
		for _, what := range []string{"labels", "capacity", "allocatable"} {
			if v := r[what]; v != "" {
				props = append(props, [2]string{what, v})
			}
		}
		if r["kind"] != "rp2040" {
			if err := w.agentRegistersWithProps(r["kind"], r["name"], props); err != nil {
				return err
			}
			if err := w.reportsHealthy(r["name"]); err != nil {
				return err
			}
			continue
		}
		body, err := nodeBody(r["name"], r["kind"], props)
		if err != nil {
			return err
		}
		var n corev1.Node
		if err := json.Unmarshal(body, &n); err != nil {
			return err
		}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady"}}
		if err := w.writeJSON(http.MethodPost, nodesPath, "application/json", n); err != nil {
			return err
		}
	}
	return nil
}

// createsPodsRequesting creates each pod of a list ("a", "b" and "c") in
// turn, each with the same requests.
func (w *world) createsPodsRequesting(refs, cpu, memory string) error {
	for _, ref := range splitList(refs) {
		if err := w.createsPodRequesting(ref, cpu, memory); err != nil {
			return err
		}
		if err := w.accepted(); err != nil {
			return err
		}
	}
	return nil
}

// podsPlaced checks a table of pod and node.
func (w *world) podsPlaced(t *godog.Table) error {
	rows, err := tableRows(t, "pod", "node")
	if err != nil {
		return err
	}
	want, got := map[string]string{}, map[string]string{}
	for _, r := range rows {
		p, err := w.pod(r["pod"])
		if err != nil {
			return err
		}
		want[r["pod"]], got[r["pod"]] = r["node"], p.Spec.NodeName
	}
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("placement (-want +got):\n%s", diff)
	}
	return nil
}

// podUnschedulable checks what kubectl describe shows of a pod that fits
// nowhere: Pending, on no node, PodScheduled False for reason
// Unschedulable, with the message.
func (w *world) podUnschedulable(ref, message string) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	var c corev1.PodCondition
	for _, pc := range p.Status.Conditions {
		if pc.Type == corev1.PodScheduled {
			c = pc
		}
	}
	got := fmt.Sprintf("%s on %q, PodScheduled %s %s %q", p.Status.Phase, p.Spec.NodeName, c.Status, c.Reason, c.Message)
	want := fmt.Sprintf("Pending on \"\", PodScheduled False Unschedulable %q", message)
	if diff := cmp.Diff(want, got); diff != "" {
		return fmt.Errorf("pod %s (-want +got):\n%s", ref, diff)
	}
	return nil
}
