package features

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// Pod steps name a pod "name" (in namespace default) or "namespace/name".
func (w *world) registerPodSteps(sc *godog.ScenarioContext) {
	sc.Step(`^a client creates pod "([^"]+)"$`, w.createsPod)
	sc.Step(`^a client creates pod "([^"]+)" with:$`, w.createsPodWith)
	sc.Step(`^a client creates pod "([^"]+)" requesting (\S+) CPU and (\S+) memory$`, w.createsPodRequesting)
	sc.Step(`^a client deletes pod "([^"]+)"$`, w.deletesPod)
	sc.Step(`^a client deletes pod "([^"]+)" with a grace period of (\d+) seconds?$`, w.deletesPodWithGrace)
	sc.Step(`^a client evicts pod "([^"]+)"$`, w.evictsPod)
	sc.Step(`^a client binds pod "([^"]+)" to "([^"]+)"$`, w.bindsPod)
	sc.Step(`^a client reports pod "([^"]+)" (Pending|Running|Succeeded|Failed)$`, w.reportsPodPhase)
	sc.Step(`^a client labels pod "([^"]+)" with "([^"]+)"$`, w.labelsPod)
	sc.Step(`^pod "([^"]+)" is (Pending|Running|Succeeded|Failed)$`, w.podIsPhase)
	sc.Step(`^pod "([^"]+)" is bound to "([^"]+)"$`, w.podIsBoundTo)
	sc.Step(`^pod "([^"]+)" is not bound to any node$`, w.podIsUnbound)
	sc.Step(`^pod "([^"]+)" is terminating$`, w.podIsTerminating)
	sc.Step(`^pod "([^"]+)" is gone$`, w.podIsGone)
	sc.Step(`^pod "([^"]+)" has condition (\w+)=(\w+)$`, w.podHasCondition)
	sc.Step(`^pod "([^"]+)" has condition (\w+)=(\w+) with reason "([^"]*)"$`, w.podHasConditionReason)
	sc.Step(`^pod "([^"]+)" has condition (\w+)=(\w+) with message "([^"]*)"$`, w.podHasConditionMessage)
	sc.Step(`^pod "([^"]+)" tolerates:$`, w.podTolerates)
	sc.Step(`^pod "([^"]+)" has a deletion grace period of (\d+) seconds, ending at (\S+)$`, w.podDeletionGrace)
	sc.Step(`^listing pods(?: in "([^"]*)")? with (label|field) selector "([^"]*)" shows exactly (.+)$`, w.podSelectorShows)
	sc.Step(`^listing pods across namespaces shows exactly (.+)$`, w.podsAcrossShow)
	sc.Step(`^an operator cordons "([^"]+)"$`, w.cordons)
	sc.Step(`^an operator uncordons "([^"]+)"$`, w.uncordons)
	sc.Step(`^an operator taints "([^"]+)" with "([^"]+)"$`, w.operatorTaints)
	sc.Step(`^an operator removes the taint "([^"]+)" from "([^"]+)"$`, w.untaints)
	sc.Step(`^an operator drains "([^"]+)"$`, w.drains)
	sc.Step(`^an operator drains "([^"]+)" with a grace period of (\d+) seconds?$`, w.drainsWithGrace)
	sc.Step(`^an operator undrains "([^"]+)"$`, w.undrains)
	sc.Step(`^node "([^"]+)" is (cordoned|schedulable)$`, w.nodeIsCordoned)
	sc.Step(`^node "([^"]+)" has the taint "([^"]+)"$`, w.nodeHasTaint)
	sc.Step(`^node "([^"]+)" has no taint "([^"]+)"$`, w.nodeLacksTaint)
	sc.Step(`^node "([^"]+)" is in agent state (\w+)$`, w.nodeAgentState)
	sc.Step(`^a client asks for pods with field selector "([^"]*)"$`, w.asksPodsWithFieldSelector)
	sc.Step(`^the answer is (\d+) (\w+) naming "([^"]+)"$`, w.answerIsNaming)
}

// podRef splits "namespace/name"; a bare name is in namespace default.
func podRef(ref string) (namespace, name string) {
	if ns, n, ok := strings.Cut(ref, "/"); ok {
		return ns, n
	}
	return "default", ref
}

func podURL(ref string) string {
	ns, name := podRef(ref)
	return "/api/v1/namespaces/" + url.PathEscape(ns) + "/pods/" + url.PathEscape(name)
}

func podsURL(namespace string) string {
	return "/api/v1/namespaces/" + url.PathEscape(namespace) + "/pods"
}

// pod is GET of the pod.
func (w *world) pod(ref string) (corev1.Pod, error) {
	var p corev1.Pod
	err := w.get(podURL(ref), &p)
	return p, err
}

// basicPod is a pod with one container and no requests.
func basicPod(ref string) corev1.Pod {
	ns, name := podRef(ref)
	return corev1.Pod{
		TypeMeta:   metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"app": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "busybox"}}},
	}
}

// postPod creates p; whether herd accepts it is for later steps to judge.
func (w *world) postPod(p corev1.Pod) error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return w.write(http.MethodPost, podsURL(p.Namespace), "application/json", data)
}

func (w *world) createsPod(ref string) error {
	if err := w.postPod(basicPod(ref)); err != nil {
		return err
	}
	return w.accepted()
}

// createsPodWith creates a pod from YAML: a whole Pod, or just the parts
// to lay over the basic one (a spec with containers replaces the basic
// container).
func (w *world) createsPodWith(ref string, doc *godog.DocString) error {
	p := basicPod(ref)
	data, err := yaml.YAMLToJSON([]byte(doc.Content))
	if err != nil {
		return fmt.Errorf("the pod in the step is not YAML: %w", err)
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return fmt.Errorf("the pod in the step is not a Pod: %w", err)
	}
	return w.postPod(p)
}

func (w *world) createsPodRequesting(ref, cpu, memory string) error {
	return w.createsPodWith(ref, &godog.DocString{Content: fmt.Sprintf(
		"spec:\n  containers:\n  - name: main\n    image: busybox\n    resources:\n      requests: {cpu: %q, memory: %q}\n", cpu, memory)})
}

// accepted fails unless the last request was accepted.
func (w *world) accepted() error {
	if w.last.code < 200 || w.last.code > 299 {
		return fmt.Errorf("herd refused the request: %s", w.last)
	}
	return nil
}

func (w *world) deletesPod(ref string) error {
	return w.write(http.MethodDelete, podURL(ref), "", nil)
}

func (w *world) deletesPodWithGrace(ref string, secs int) error {
	return w.write(http.MethodDelete, podURL(ref)+fmt.Sprintf("?gracePeriodSeconds=%d", secs), "", nil)
}

func (w *world) evictsPod(ref string) error {
	ns, name := podRef(ref)
	data, _ := json.Marshal(policyv1.Eviction{
		TypeMeta:   metav1.TypeMeta{Kind: "Eviction", APIVersion: "policy/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
	})
	return w.write(http.MethodPost, podURL(ref)+"/eviction", "application/json", data)
}

func (w *world) bindsPod(ref, node string) error {
	ns, name := podRef(ref)
	data, _ := json.Marshal(corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	})
	return w.write(http.MethodPost, podURL(ref)+"/binding", "application/json", data)
}

func (w *world) reportsPodPhase(ref, phase string) error {
	data, _ := json.Marshal(map[string]any{"status": map[string]any{"phase": phase}})
	return w.write(http.MethodPatch, podURL(ref)+"/status", "application/merge-patch+json", data)
}

func (w *world) labelsPod(ref, kv string) error {
	k, v, _ := strings.Cut(kv, "=")
	data, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{k: v}}})
	return w.write(http.MethodPatch, podURL(ref), "application/strategic-merge-patch+json", data)
}

func (w *world) podIsPhase(ref, phase string) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	if string(p.Status.Phase) != phase {
		return fmt.Errorf("pod %s is %s, want %s", ref, p.Status.Phase, phase)
	}
	return nil
}

func (w *world) podIsBoundTo(ref, node string) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	if p.Spec.NodeName != node {
		return fmt.Errorf("pod %s is bound to %q, want %q", ref, p.Spec.NodeName, node)
	}
	return nil
}

func (w *world) podIsUnbound(ref string) error { return w.podIsBoundTo(ref, "") }

func (w *world) podIsTerminating(ref string) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	if p.DeletionTimestamp == nil {
		return fmt.Errorf("pod %s has no deletion timestamp", ref)
	}
	return nil
}

func (w *world) podIsGone(ref string) error {
	r, err := w.do(http.MethodGet, podURL(ref), "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusNotFound {
		return fmt.Errorf("pod %s is still there: %s", ref, r)
	}
	return nil
}

func (w *world) podCondition(ref, typ string) (corev1.PodCondition, error) {
	p, err := w.pod(ref)
	if err != nil {
		return corev1.PodCondition{}, err
	}
	for _, c := range p.Status.Conditions {
		if string(c.Type) == typ {
			return c, nil
		}
	}
	return corev1.PodCondition{}, fmt.Errorf("pod %s has no %s condition: %+v", ref, typ, p.Status.Conditions)
}

func (w *world) podHasCondition(ref, typ, status string) error {
	c, err := w.podCondition(ref, typ)
	if err == nil && string(c.Status) != status {
		err = fmt.Errorf("pod %s %s=%s, want %s", ref, typ, c.Status, status)
	}
	return err
}

func (w *world) podHasConditionReason(ref, typ, status, reason string) error {
	if err := w.podHasCondition(ref, typ, status); err != nil {
		return err
	}
	c, _ := w.podCondition(ref, typ)
	if c.Reason != reason {
		return fmt.Errorf("pod %s %s reason %q, want %q", ref, typ, c.Reason, reason)
	}
	return nil
}

func (w *world) podHasConditionMessage(ref, typ, status, msg string) error {
	if err := w.podHasCondition(ref, typ, status); err != nil {
		return err
	}
	c, _ := w.podCondition(ref, typ)
	if c.Message != msg {
		return fmt.Errorf("pod %s %s message\n  %q\nwant\n  %q", ref, typ, c.Message, msg)
	}
	return nil
}

// podTolerates compares the pod's tolerations with a table of key,
// operator, effect and seconds (empty for none).
func (w *world) podTolerates(ref string, table *godog.Table) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	var got, want []string
	for _, t := range p.Spec.Tolerations {
		secs := ""
		if t.TolerationSeconds != nil {
			secs = fmt.Sprint(*t.TolerationSeconds)
		}
		got = append(got, strings.Join([]string{t.Key, string(t.Operator), string(t.Effect), secs}, "|"))
	}
	for _, row := range table.Rows[1:] {
		var cells []string
		for _, c := range row.Cells {
			cells = append(cells, c.Value)
		}
		want = append(want, strings.Join(cells, "|"))
	}
	if !slices.Equal(got, want) {
		return fmt.Errorf("pod %s tolerates\n  %q\nwant\n  %q", ref, got, want)
	}
	return nil
}

func (w *world) podDeletionGrace(ref string, secs int64, end string) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	at, err := w.at(end)
	if err != nil {
		return err
	}
	if p.DeletionGracePeriodSeconds == nil || *p.DeletionGracePeriodSeconds != secs || p.DeletionTimestamp == nil || !p.DeletionTimestamp.Time.Equal(at) {
		return fmt.Errorf("pod %s deletion: grace %v, timestamp %v; want %d s ending %s", ref, p.DeletionGracePeriodSeconds, p.DeletionTimestamp, secs, w.show(at))
	}
	return nil
}

// podNames renders a pod list as "a, b and c" (namespace/name outside
// default), or "no pods".
func podNames(l corev1.PodList) string {
	var names []string
	for _, p := range l.Items {
		n := p.Name
		if p.Namespace != "default" {
			n = p.Namespace + "/" + n
		}
		names = append(names, `"`+n+`"`)
	}
	switch len(names) {
	case 0:
		return "no pods"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

func (w *world) podSelectorShows(namespace, kind, selector, want string) error {
	path := "/api/v1/pods"
	if namespace != "" {
		path = podsURL(namespace)
	}
	path += "?" + kind + "Selector=" + url.QueryEscape(selector)
	var l corev1.PodList
	if err := w.get(path, &l); err != nil {
		return err
	}
	if got := podNames(l); got != want {
		return fmt.Errorf("%s selector %q lists %s, want %s", kind, selector, got, want)
	}
	return nil
}

func (w *world) podsAcrossShow(want string) error {
	var l corev1.PodList
	if err := w.get("/api/v1/pods", &l); err != nil {
		return err
	}
	if got := podNames(l); got != want {
		return fmt.Errorf("pods %s, want %s", got, want)
	}
	return nil
}

func (w *world) patchNodeSpec(node string, spec map[string]any) error {
	data, _ := json.Marshal(map[string]any{"spec": spec})
	return w.write(http.MethodPatch, nodePath(node), "application/strategic-merge-patch+json", data)
}

func (w *world) cordons(node string) error {
	if err := w.patchNodeSpec(node, map[string]any{"unschedulable": true}); err != nil {
		return err
	}
	return w.accepted()
}

func (w *world) uncordons(node string) error {
	if err := w.patchNodeSpec(node, map[string]any{"unschedulable": false}); err != nil {
		return err
	}
	return w.accepted()
}

// parseTaint reads key=value:Effect.
func parseTaint(s string) (key, value, effect string) {
	kv, effect, _ := strings.Cut(s, ":")
	key, value, _ = strings.Cut(kv, "=")
	return key, value, effect
}

func (w *world) operatorTaints(node, taint string) error {
	k, v, e := parseTaint(taint)
	data, _ := json.Marshal(map[string]string{"key": k, "value": v, "effect": e})
	return w.write(http.MethodPost, herdPath+"/nodes/"+url.PathEscape(node)+"/taints", "application/json", data)
}

func (w *world) untaints(taint, node string) error {
	k, _, e := parseTaint(taint)
	path := herdPath + "/nodes/" + url.PathEscape(node) + "/taints/" + k
	if e != "" {
		path += "?effect=" + url.QueryEscape(e)
	}
	return w.write(http.MethodDelete, path, "", nil)
}

func (w *world) drains(node string) error {
	return w.write(http.MethodPost, herdPath+"/nodes/"+url.PathEscape(node)+"/drain", "application/json", []byte(`{}`))
}

func (w *world) drainsWithGrace(node string, secs int) error {
	return w.write(http.MethodPost, herdPath+"/nodes/"+url.PathEscape(node)+"/drain", "application/json",
		fmt.Appendf(nil, `{"gracePeriodSeconds":%d}`, secs))
}

func (w *world) undrains(node string) error {
	return w.write(http.MethodDelete, herdPath+"/nodes/"+url.PathEscape(node)+"/drain", "", nil)
}

func (w *world) nodeIsCordoned(node, state string) error {
	n, err := w.node(node)
	if err != nil {
		return err
	}
	if n.Spec.Unschedulable != (state == "cordoned") {
		return fmt.Errorf("node %s unschedulable=%v, want %s", node, n.Spec.Unschedulable, state)
	}
	return nil
}

func (w *world) findTaint(node, taint string) (bool, error) {
	n, err := w.node(node)
	if err != nil {
		return false, err
	}
	k, v, e := parseTaint(taint)
	return slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool {
		return t.Key == k && t.Value == v && string(t.Effect) == e
	}), nil
}

func (w *world) nodeHasTaint(node, taint string) error {
	ok, err := w.findTaint(node, taint)
	if err == nil && !ok {
		n, _ := w.node(node)
		err = fmt.Errorf("node %s lacks taint %s: %+v", node, taint, n.Spec.Taints)
	}
	return err
}

func (w *world) nodeLacksTaint(node, taint string) error {
	ok, err := w.findTaint(node, taint)
	if err == nil && ok {
		err = fmt.Errorf("node %s still has taint %s", node, taint)
	}
	return err
}

func (w *world) nodeAgentState(node, state string) error {
	n, err := w.node(node)
	if err != nil {
		return err
	}
	if got := n.Annotations["herd.dev/agent-state"]; got != state {
		return fmt.Errorf("node %s agent state %q, want %q", node, got, state)
	}
	return nil
}

func (w *world) asksPodsWithFieldSelector(sel string) error {
	var err error
	w.last, err = w.do(http.MethodGet, "/api/v1/pods?fieldSelector="+url.QueryEscape(sel), "", nil)
	return err
}

func (w *world) answerIsNaming(code int, reason, what string) error {
	st, err := w.status()
	if err != nil {
		return err
	}
	if int(st.Code) != code || string(st.Reason) != reason || !strings.Contains(st.Message, what) {
		return fmt.Errorf("answer %d %s %q, want %d %s naming %q", st.Code, st.Reason, st.Message, code, reason, what)
	}
	return nil
}
