package features

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

// maxBody is the request body limit herd documents: 1 MiB.
const maxBody = 1 << 20

// The steps here send requests that herd may well refuse: they record the
// answer and leave judging it to the Then steps.
func (w *world) registerRejectionSteps(sc *godog.ScenarioContext) {
	sc.Step(`^an agent registers a node named "([^"]+)"$`, w.registersNamed)
	sc.Step(`^a client creates a node named "([^"]+)" through the Kubernetes API$`, w.createsNamed)
	sc.Step(`^an agent registers "([^"]+)" as kind "([^"]+)"$`, w.registersKind)
	sc.Step(`^a client creates the node "([^"]+)" of kind "([^"]+)" through the Kubernetes API$`, w.createsKind)
	sc.Step(`^an agent registers "([^"]+)" with (capacity|allocatable) "([^"]+)"$`, w.registersResources)
	sc.Step(`^an agent registers "([^"]+)" with a body that is not JSON$`, w.registersGarbage)
	sc.Step(`^an agent registers "([^"]+)" with a Node of (just over|exactly) 1 MiB$`, w.registersLarge)
	sc.Step(`^the agent on "([^"]+)" sends a heartbeat without (\w+)$`, w.heartbeatWithout)
	sc.Step(`^the agent on "([^"]+)" sends a heartbeat that is not JSON$`, w.heartbeatGarbage)
	sc.Step(`^the agent on "([^"]+)" reports (-?\d+) bytes of (memory|disk) available out of (\d+)$`, w.reportsAvailable)
	sc.Step(`^"([^"]+)" patches its status as "([^"]+)"$`, w.patchesStatusAs)
	sc.Step(`^a heartbeat arrives for the unknown node "([^"]+)"$`, w.heartbeatForUnknown)
	sc.Step(`^the request succeeds$`, w.requestSucceeds)
	sc.Step(`^"([^"]+)" reports (capacity|allocatable) "([^"=]+)=([^"]*)" in a status patch$`, w.reportsResourceInPatch)
	sc.Step(`^"([^"]+)" reports its (\w+) condition as "([^"]*)"$`, w.reportsConditionAs)
	sc.Step(`^a client taints node "([^"]+)" with effect "([^"]*)" through the Kubernetes API$`, w.taintsThroughKubernetes)
	sc.Step(`^a client creates pod "([^"]+)" with (restart policy|image pull policy|memory request|toleration operator|port protocol|container port|label|annotation) "([^"]*)"$`, w.createsPodWithOne)
	sc.Step(`^a client creates pod "([^"]+)" requesting (\S+) CPU with a limit of (\S+) CPU$`, w.createsPodAboveLimit)
	sc.Step(`^a client posts a Pod named "([^"]+)" to the nodes of the Kubernetes API$`, w.postsPodAsNode)
	sc.Step(`^the error says (.+)$`, w.errorSays)
}

func (w *world) registersNamed(name string) error {
	body, err := nodeBody(name, "linux", nil)
	if err != nil {
		return err
	}
	return w.write(http.MethodPut, registrationPath(name), "application/json", body)
}

func (w *world) createsNamed(name string) error {
	body, err := nodeBody(name, "linux", nil)
	if err != nil {
		return err
	}
	return w.write(http.MethodPost, nodesPath, "application/json", body)
}

func (w *world) registersKind(name, kind string) error {
	body, err := nodeBody(name, kind, nil)
	if err != nil {
		return err
	}
	return w.write(http.MethodPut, registrationPath(name), "application/json", body)
}

// createsKind is a client creating a node whose herd.dev/kind label says
// kind.
func (w *world) createsKind(name, kind string) error {
	body, err := nodeBody(name, kind, nil)
	if err != nil {
		return err
	}
	return w.write(http.MethodPost, nodesPath, "application/json", body)
}

func (w *world) registersResources(name, list, value string) error {
	body, err := nodeBody(name, "linux", [][2]string{{list, value}})
	if err != nil {
		return err
	}
	return w.write(http.MethodPut, registrationPath(name), "application/json", body)
}

func (w *world) registersGarbage(name string) error {
	body := []byte(`{"metadata": {"name": "` + name + `", "labels": {`)
	return w.write(http.MethodPut, registrationPath(name), "application/json", body)
}

// registersLarge sends a valid Node padded with trailing whitespace (which
// JSON allows) to exactly 1 MiB, or to one byte more.
func (w *world) registersLarge(name, size string) error {
	body, err := nodeBody(name, "linux", nil)
	if err != nil {
		return err
	}
	want := maxBody
	if size == "just over" {
		want++
	}
	body = append(body, bytes.Repeat([]byte(" "), want-len(body))...)
	if len(body) != want {
		return fmt.Errorf("made a body of %d bytes, want %d", len(body), want)
	}
	return w.write(http.MethodPut, registrationPath(name), "application/json", body)
}

// heartbeatWithout leaves one metric out of the agent's heartbeat.
func (w *world) heartbeatWithout(name, metric string) error {
	data, err := json.Marshal(w.agentFor(name).metrics)
	if err != nil {
		return err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return err
	}
	if _, ok := m[metric]; !ok {
		return fmt.Errorf("an agent reports no metric called %q", metric)
	}
	delete(m, metric)
	body, err := json.Marshal(map[string]any{"metrics": m})
	if err != nil {
		return err
	}
	return w.write(http.MethodPost, heartbeatPath(name), "application/json", body)
}

func (w *world) heartbeatGarbage(name string) error {
	return w.write(http.MethodPost, heartbeatPath(name), "application/json", []byte(`{"metrics": {"cpuCount": 4,`))
}

// reportsAvailable reports a memory or disk total and what is available of
// it, whatever the agent measured; herd judges.
func (w *world) reportsAvailable(name string, available int64, what string, total int64) error {
	m := w.agentFor(name).metrics
	if what == "memory" {
		m.MemoryAvailableBytes, m.MemoryTotalBytes = available, total
	} else {
		m.DiskAvailableBytes, m.DiskTotalBytes = available, total
	}
	body, err := json.Marshal(map[string]any{"metrics": m})
	if err != nil {
		return err
	}
	return w.write(http.MethodPost, heartbeatPath(name), "application/json", body)
}

// patchesStatusAs sends a plain Ready=True status patch with the given
// Content-Type.
func (w *world) patchesStatusAs(name, contentType string) error {
	body := []byte(`{"status":{"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady"}]}}`)
	return w.write(http.MethodPatch, nodeStatusPath(name), contentType, body)
}

func (w *world) heartbeatForUnknown(name string) error {
	body, err := json.Marshal(map[string]any{"metrics": healthyMetrics()})
	if err != nil {
		return err
	}
	return w.write(http.MethodPost, heartbeatPath(name), "application/json", body)
}

func (w *world) requestSucceeds() error {
	if w.last.code < 200 || w.last.code > 299 {
		return fmt.Errorf("herd refused the request: %s", w.last)
	}
	return nil
}

// reportsResourceInPatch is a node reporting one capacity or allocatable
// quantity through a strategic-merge patch of its status, as a kubelet
// does.
func (w *world) reportsResourceInPatch(name, list, resource, quantity string) error {
	body, err := json.Marshal(map[string]any{"status": map[string]any{list: map[string]string{resource: quantity}}})
	if err != nil {
		return err
	}
	return w.write(http.MethodPatch, nodeStatusPath(name), "application/strategic-merge-patch+json", body)
}

// reportsConditionAs is a node reporting one condition with the given
// status through a status patch.
func (w *world) reportsConditionAs(name, condition, status string) error {
	body, err := json.Marshal(map[string]any{"status": map[string]any{"conditions": []map[string]string{{"type": condition, "status": status}}}})
	if err != nil {
		return err
	}
	return w.write(http.MethodPatch, nodeStatusPath(name), "application/strategic-merge-patch+json", body)
}

// taintsThroughKubernetes is kubectl taint: a patch of the node's
// spec.taints.
func (w *world) taintsThroughKubernetes(name, effect string) error {
	body, err := json.Marshal(map[string]any{"spec": map[string]any{"taints": []map[string]string{{"key": "dedicated", "value": "db", "effect": effect}}}})
	if err != nil {
		return err
	}
	return w.write(http.MethodPatch, nodePath(name), "application/strategic-merge-patch+json", body)
}

// createsPodWithOne creates the basic pod with one thing set as an
// operator would say it.
func (w *world) createsPodWithOne(ref, what, value string) error {
	p := basicPod(ref)
	c := &p.Spec.Containers[0]
	switch what {
	case "restart policy":
		p.Spec.RestartPolicy = corev1.RestartPolicy(value)
	case "image pull policy":
		c.ImagePullPolicy = corev1.PullPolicy(value)
	case "memory request":
		q, err := resource.ParseQuantity(value)
		if err != nil {
			return err
		}
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceMemory: q}
	case "toleration operator":
		p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOperator(value), Value: "db", Effect: corev1.TaintEffectNoSchedule}}
	case "port protocol":
		c.Ports = []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.Protocol(value)}}
	case "container port":
		port, err := strconv.ParseInt(value, 10, 32)
		if err != nil {
			return err
		}
		c.Ports = []corev1.ContainerPort{{ContainerPort: int32(port)}}
	case "label", "annotation":
		k, v, _ := strings.Cut(value, "=")
		if what == "label" {
			p.Labels = map[string]string{k: v}
		} else {
			p.Annotations = map[string]string{k: v}
		}
	default:
		return fmt.Errorf("no pod setting called %q", what)
	}
	return w.postPod(p)
}

// createsPodAboveLimit creates the basic pod requesting more CPU than its
// limit.
func (w *world) createsPodAboveLimit(ref, request, limit string) error {
	p := basicPod(ref)
	req, err := resource.ParseQuantity(request)
	if err != nil {
		return err
	}
	lim, err := resource.ParseQuantity(limit)
	if err != nil {
		return err
	}
	p.Spec.Containers[0].Resources = corev1.ResourceRequirements{
		Requests: corev1.ResourceList{corev1.ResourceCPU: req}, Limits: corev1.ResourceList{corev1.ResourceCPU: lim},
	}
	return w.postPod(p)
}

// postsPodAsNode sends a Pod to /api/v1/nodes.
func (w *world) postsPodAsNode(name string) error {
	return w.write(http.MethodPost, nodesPath, "application/json", []byte(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"`+name+`"}}`))
}

// errorSays checks that the last answer's Status says text; quotes
// around the whole of it are the scenario's, not the message's.
func (w *world) errorSays(text string) error {
	if len(text) >= 2 && strings.HasPrefix(text, `"`) && strings.HasSuffix(text, `"`) {
		text = text[1 : len(text)-1]
	}
	st, err := w.status()
	if err != nil {
		return err
	}
	if !strings.Contains(st.Message, text) {
		return fmt.Errorf("the error says %q, not %q", st.Message, text)
	}
	return nil
}
