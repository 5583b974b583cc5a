package features

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Labels and annotations herd shows on the Nodes it serves.
const (
	labelKind            = "herd.dev/kind"
	annotationAgentState = "herd.dev/agent-state"
	annotationRestarts   = "herd.dev/restart-count"
	annotationRestartWhy = "herd.dev/last-restart-reason"
	annotationStartedAt  = "herd.dev/started-at"
	annotationHeartbeat  = "herd.dev/last-heartbeat"
)

// agent is what the world remembers of one node's agent, as the agent
// itself would: what it registers with, and the metrics it reports.
type agent struct {
	registration []byte
	metrics      wireMetrics
}

// agentFor returns the agent of a node, creating one with healthy metrics.
func (w *world) agentFor(name string) *agent {
	a, ok := w.agents[name]
	if !ok {
		a = &agent{metrics: healthyMetrics()}
		w.agents[name] = a
	}
	return a
}

func (w *world) registerNodeSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the (\w+) node "([^"]+)" registers through herd's agent$`, w.agentRegisters)
	sc.Step(`^the (\w+) node "([^"]+)" registers through herd's agent with:$`, w.agentRegistersWith)
	sc.Step(`^these nodes have registered through herd's agent:$`, w.nodesHaveRegistered)
	sc.Step(`^node "([^"]+)" has registered and is Ready$`, w.registeredAndReady)
	sc.Step(`^the agent on "([^"]+)" registers again$`, w.agentRegistersAgain)
	sc.Step(`^the agent on "([^"]+)" stops cleanly$`, w.agentStops)
	sc.Step(`^the (\w+) node "([^"]+)" is created through the Kubernetes API$`, w.created)
	sc.Step(`^the (\w+) node "([^"]+)" is created through the Kubernetes API with:$`, w.createdWith)
	sc.Step(`^the node "([^"]+)" is created through the Kubernetes API again$`, w.createdAgain)
	sc.Step(`^"([^"]+)" posts its Node to the Kubernetes API:$`, w.postsNode)
	sc.Step(`^a client deletes the node "([^"]+)"$`, w.deletes)
	sc.Step(`^a client labels node "([^"]+)" with "([^"]+)"$`, w.labelsNode)

	sc.Step(`^node "([^"]+)" shows:$`, w.nodeShows)
	sc.Step(`^listing the nodes shows exactly (.+)$`, w.listShows)
	sc.Step(`^listing the nodes with label selector "([^"]*)" shows exactly (.+)$`, w.selectorListShows)
	sc.Step(`^asking for node "([^"]+)" finds nothing$`, w.nodeNotFound)
}

// nodeBody is a Kubernetes Node as an agent or a client sends it. props
// are (what, value) pairs: labels ("rack=r1, zone=a"), capacity and
// allocatable ("cpu=8, memory=32Gi").
func nodeBody(name, kind string, props [][2]string) ([]byte, error) {
	n := corev1.Node{
		TypeMeta:   metav1.TypeMeta{Kind: "Node", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{labelKind: kind}},
		Status: corev1.NodeStatus{
			NodeInfo: corev1.NodeSystemInfo{
				KubeletVersion: "herd-agent/1.0.0", OperatingSystem: kind, Architecture: "amd64",
			},
		},
	}
	for _, p := range props {
		switch p[0] {
		case "labels":
			labels, err := keyValues(p[1])
			if err != nil {
				return nil, err
			}
			for k, v := range labels {
				n.Labels[k] = v
			}
		case "capacity", "allocatable":
			rl, err := resources(p[1])
			if err != nil {
				return nil, err
			}
			if p[0] == "capacity" {
				n.Status.Capacity = rl
			} else {
				n.Status.Allocatable = rl
			}
		default:
			return nil, fmt.Errorf("a node registers with labels, capacity or allocatable, not %q", p[0])
		}
	}
	return json.Marshal(n)
}

// keyValues reads "a=1, b=2".
func keyValues(s string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range splitList(s) {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("want key=value, got %q", kv)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// resources reads "cpu=8, memory=32Gi" as Kubernetes quantities.
func resources(s string) (corev1.ResourceList, error) {
	kv, err := keyValues(s)
	if err != nil {
		return nil, err
	}
	out := corev1.ResourceList{}
	for k, v := range kv {
		q, err := resource.ParseQuantity(v)
		if err != nil {
			return nil, fmt.Errorf("%s=%s: %w", k, v, err)
		}
		out[corev1.ResourceName(k)] = q
	}
	return out, nil
}

func (w *world) agentRegisters(kind, name string) error {
	return w.agentRegistersWithProps(kind, name, nil)
}

func (w *world) agentRegistersWith(kind, name string, t *godog.Table) error {
	props, err := pairs(t)
	if err != nil {
		return err
	}
	return w.agentRegistersWithProps(kind, name, props)
}

// agentRegistersWithProps is herd's agent starting on a node: PUT of its
// Node to the registration endpoint.
func (w *world) agentRegistersWithProps(kind, name string, props [][2]string) error {
	body, err := nodeBody(name, kind, props)
	if err != nil {
		return err
	}
	a := w.agentFor(name)
	a.registration = body
	return w.mustWrite(http.MethodPut, registrationPath(name), "application/json", body)
}

// nodesHaveRegistered registers one agent per row: name, kind, and
// optionally labels and capacity.
func (w *world) nodesHaveRegistered(t *godog.Table) error {
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
		if err := w.agentRegistersWithProps(r["kind"], r["name"], props); err != nil {
			return err
		}
	}
	return nil
}

// registeredAndReady is a linux agent that registered and reported in.
func (w *world) registeredAndReady(name string) error {
	if err := w.agentRegisters("linux", name); err != nil {
		return err
	}
	return w.reportsHealthy(name)
}

// agentRegistersAgain is the agent starting again with what it registered
// with before, whether or not it said goodbye.
func (w *world) agentRegistersAgain(name string) error {
	a, ok := w.agents[name]
	if !ok || a.registration == nil {
		return fmt.Errorf("no agent has registered %s yet", name)
	}
	return w.mustWrite(http.MethodPut, registrationPath(name), "application/json", a.registration)
}

func (w *world) agentStops(name string) error {
	return w.mustWrite(http.MethodDelete, registrationPath(name), "", nil)
}

func (w *world) created(kind, name string) error {
	return w.createdWithProps(kind, name, nil)
}

func (w *world) createdWith(kind, name string, t *godog.Table) error {
	props, err := pairs(t)
	if err != nil {
		return err
	}
	return w.createdWithProps(kind, name, props)
}

// labelsNode is kubectl label node NAME KEY=VALUE --overwrite: a strategic
// merge patch of the node's labels.
func (w *world) labelsNode(name, kv string) error {
	k, v, _ := strings.Cut(kv, "=")
	data, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{k: v}}})
	if err != nil {
		return err
	}
	return w.write(http.MethodPatch, nodePath(name), "application/strategic-merge-patch+json", data)
}

// createdWithProps is a Kubernetes client creating the node: POST.
func (w *world) createdWithProps(kind, name string, props [][2]string) error {
	body, err := nodeBody(name, kind, props)
	if err != nil {
		return err
	}
	w.agentFor(name).registration = body
	if err := w.mustWrite(http.MethodPost, nodesPath, "application/json", body); err != nil {
		return err
	}
	if w.last.code != http.StatusCreated {
		return fmt.Errorf("want 201 Created, got %s", w.last)
	}
	return nil
}

// createdAgain posts the same Node once more; herd is expected to refuse.
func (w *world) createdAgain(name string) error {
	a, ok := w.agents[name]
	if !ok || a.registration == nil {
		return fmt.Errorf("%s was never created", name)
	}
	return w.write(http.MethodPost, nodesPath, "application/json", a.registration)
}

// postsNode is a Pico (or any client) posting its own Node JSON.
func (w *world) postsNode(name string, doc *godog.DocString) error {
	var n corev1.Node
	if err := json.Unmarshal([]byte(doc.Content), &n); err != nil {
		return fmt.Errorf("the Node in the spec is not valid: %w", err)
	}
	if n.Name != name {
		return fmt.Errorf("the Node in the spec is %q, not %q", n.Name, name)
	}
	w.agentFor(name).registration = []byte(doc.Content)
	if err := w.mustWrite(http.MethodPost, nodesPath, "application/json", []byte(doc.Content)); err != nil {
		return err
	}
	if w.last.code != http.StatusCreated {
		return fmt.Errorf("want 201 Created, got %s", w.last)
	}
	return nil
}

func (w *world) deletes(name string) error {
	return w.mustWrite(http.MethodDelete, nodePath(name), "", nil)
}

// nodeShows checks what herd shows of a node, both on its own (GET) and in
// the node list, row by row: kind, agent state, restart count, last
// restart reason ("none" when there is none), started at, last heartbeat,
// "label <key>", "annotation <key>", "capacity <resource>",
// "allocatable <resource>".
func (w *world) nodeShows(name string, t *godog.Table) error {
	rows, err := pairs(t)
	if err != nil {
		return err
	}
	got, err := w.node(name)
	if err != nil {
		return err
	}
	list, err := w.listNodes("")
	if err != nil {
		return err
	}
	i := slices.IndexFunc(list.Items, func(n corev1.Node) bool { return n.Name == name })
	if i < 0 {
		return fmt.Errorf("%s is not in the node list", name)
	}
	for _, n := range []struct {
		where string
		node  corev1.Node
	}{{"GET " + nodePath(name), got}, {"the node list", list.Items[i]}} {
		for _, r := range rows {
			if err := w.nodeHas(n.node, r[0], r[1]); err != nil {
				return fmt.Errorf("%s: %w", n.where, err)
			}
		}
	}
	return nil
}

// nodeHas checks one thing herd shows of a node.
func (w *world) nodeHas(n corev1.Node, what, want string) error {
	annotation := func(key string) (string, bool) {
		v, ok := n.Annotations[key]
		return v, ok
	}
	var (
		got     string
		present bool
	)
	switch {
	case what == "kind":
		got, present = n.Labels[labelKind]
	case what == "agent state":
		got, present = annotation(annotationAgentState)
	case what == "restart count":
		got, present = annotation(annotationRestarts)
	case what == "last restart reason":
		got, present = annotation(annotationRestartWhy)
	case what == "started at", what == "last heartbeat":
		key := map[string]string{"started at": annotationStartedAt, "last heartbeat": annotationHeartbeat}[what]
		raw, ok := annotation(key)
		if !ok {
			break
		}
		t, err := time.Parse(time.RFC3339, raw)
		if err != nil {
			return fmt.Errorf("%s %q is not an RFC 3339 time", what, raw)
		}
		got, present = w.show(t), true
	case strings.HasPrefix(what, "label "):
		got, present = n.Labels[strings.TrimPrefix(what, "label ")]
	case strings.HasPrefix(what, "annotation "):
		got, present = annotation(strings.TrimPrefix(what, "annotation "))
	case strings.HasPrefix(what, "capacity "), strings.HasPrefix(what, "allocatable "):
		kind, res, _ := strings.Cut(what, " ")
		list := n.Status.Capacity
		if kind == "allocatable" {
			list = n.Status.Allocatable
		}
		q, ok := list[corev1.ResourceName(res)]
		if !ok {
			break
		}
		wantQ, err := resource.ParseQuantity(want)
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		if q.Cmp(wantQ) != 0 {
			return fmt.Errorf("%s of %s is %s, want %s", what, n.Name, q.String(), want)
		}
		return nil
	default:
		return fmt.Errorf("the spec asks about %q, which the steps do not know", what)
	}
	switch {
	case want == "none" && !present:
		return nil
	case !present:
		return fmt.Errorf("%s shows no %s, want %q", n.Name, what, want)
	case got != want:
		return fmt.Errorf("%s of %s is %q, want %q", what, n.Name, got, want)
	}
	return nil
}

func (w *world) listShows(names string) error { return w.selectorListShows("", names) }

// selectorListShows checks the node list (with a label selector, when one
// is given) holds exactly the named nodes: `"a", "b" and "c"` or `no nodes`.
func (w *world) selectorListShows(selector, names string) error {
	want := []string{}
	if names != "no nodes" {
		want = splitList(names)
	}
	slices.Sort(want)
	list, err := w.listNodes(selector)
	if err != nil {
		return err
	}
	got := []string{}
	for _, n := range list.Items {
		got = append(got, n.Name)
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("the list shows %v, want %v", got, want)
	}
	head, err := resourceVersion(list.ResourceVersion)
	if err != nil {
		return err
	}
	for _, n := range list.Items {
		rv, err := resourceVersion(n.ResourceVersion)
		if err != nil {
			return err
		}
		if rv > head {
			return fmt.Errorf("%s has resourceVersion %d, past the list's %d", n.Name, rv, head)
		}
	}
	return nil
}

func (w *world) nodeNotFound(name string) error {
	r, err := w.do(http.MethodGet, nodePath(name), "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusNotFound {
		return fmt.Errorf("want 404 NotFound, got %s", r)
	}
	return nil
}
