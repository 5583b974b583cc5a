package features

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"sigs.k8s.io/yaml"

	"herd/adapters/httpapi"
	"herd/adapters/mockruntime"
)

// Steps for pods on their way out: started on the mock runtime, evicted,
// drained, terminated and garbage-collected by herd's reconcilers.
func (w *world) registerTerminationSteps(sc *godog.ScenarioContext) {
	sc.Step(`^pod "([^"]+)" runs on "([^"]+)"(?:, (ignoring shutdown|taking \d+ seconds? to shut down))?$`, w.podRunsOn)
	sc.Step(`^pod "([^"]+)" runs on "([^"]+)"(?:, (ignoring shutdown|taking \d+ seconds? to shut down))?, with:$`, w.podRunsOnWith)
	sc.Step(`^a client removes the finalizers of pod "([^"]+)"$`, w.removesFinalizers)
	sc.Step(`^pod "([^"]+)" is not terminating$`, w.podIsNotTerminating)
	sc.Step(`^the log of pod "([^"]+)" shows, in order:$`, w.podLogShows)
	sc.Step(`^the runtime took pod "([^"]+)" through, in order:$`, w.runtimeShows)
	sc.Step(`^the runtime never saw pod "([^"]+)"$`, w.runtimeNeverSaw)
	sc.Step(`^pod "([^"]+)" was finalized with reason "([^"]+)"$`, w.podFinalizedWith)
	sc.Step(`^(\d+) (seconds?|minutes?) pass(?:es)? while (.+) keeps? reporting$`, w.timePassesWhileReporting)
}

// shutdownAnnotation turns "ignoring shutdown" or "taking N seconds to shut
// down" into the mock runtime's annotation.
func shutdownAnnotation(how string) (map[string]string, error) {
	switch how {
	case "":
		return nil, nil
	case "ignoring shutdown":
		return map[string]string{mockruntime.AnnotationShutdownSeconds: "-1"}, nil
	}
	var n int
	if _, err := fmt.Sscanf(how, "taking %d", &n); err != nil {
		return nil, fmt.Errorf("read %q: %w", how, err)
	}
	return map[string]string{mockruntime.AnnotationShutdownSeconds: fmt.Sprint(n)}, nil
}

func (w *world) podRunsOn(ref, node, how string) error {
	return w.podRunsOnWith(ref, node, how, nil)
}

// podRunsOnWith creates a pod bound to node, with the YAML given laid over
// the basic pod, and checks that herd has started it on the node's
// runtime: Running and Ready.
func (w *world) podRunsOnWith(ref, node, how string, doc *godog.DocString) error {
	p := basicPod(ref)
	if doc != nil {
		data, err := yaml.YAMLToJSON([]byte(doc.Content))
		if err != nil {
			return fmt.Errorf("the pod in the step is not YAML: %w", err)
		}
		if err := json.Unmarshal(data, &p); err != nil {
			return fmt.Errorf("the pod in the step is not a Pod: %w", err)
		}
	}
	p.Spec.NodeName = node
	a, err := shutdownAnnotation(how)
	if err != nil {
		return err
	}
	for k, v := range a {
		if p.Annotations == nil {
			p.Annotations = map[string]string{}
		}
		p.Annotations[k] = v
	}
	if err := w.postPod(p); err != nil {
		return err
	}
	if err := w.accepted(); err != nil {
		return err
	}
	if err := w.podIsPhase(ref, "Running"); err != nil {
		return err
	}
	return w.podHasCondition(ref, "Ready", "True")
}

func (w *world) removesFinalizers(ref string) error {
	return w.mustWrite(http.MethodPatch, podURL(ref), "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`))
}

func (w *world) podIsNotTerminating(ref string) error {
	p, err := w.pod(ref)
	if err != nil {
		return err
	}
	if p.DeletionTimestamp != nil {
		return fmt.Errorf("pod %s is terminating, to go at %s", ref, w.show(p.DeletionTimestamp.Time))
	}
	return nil
}

// podLogShows compares the pod's stream in the audit log with a table of
// event and at, and optionally reason (a PodFinalized's or a
// PodDisruptionTargeted's).
func (w *world) podLogShows(ref string, t *godog.Table) error {
	rows, err := tableRows(t, "event", "at")
	if err != nil {
		return err
	}
	items, err := w.podLog(ref)
	if err != nil {
		return err
	}
	withReason := false
	for _, c := range t.Rows[0].Cells {
		withReason = withReason || c.Value == "reason"
	}
	var got, want []string
	for _, e := range items {
		line := e.Type + " " + w.show(e.RecordedAt)
		if withReason {
			var p struct {
				Reason string `json:"reason"`
			}
			_ = json.Unmarshal(e.Payload, &p)
			line += " " + p.Reason
		}
		got = append(got, strings.TrimSpace(line))
	}
	for _, r := range rows {
		line := r["event"] + " " + r["at"]
		if reason, ok := r["reason"]; ok {
			line += " " + reason
		}
		want = append(want, strings.TrimSpace(line))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		return fmt.Errorf("the log of pod %s:\n  %s\nwant\n  %s", ref, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	return nil
}

// podLog is the pod's stream in the audit log.
func (w *world) podLog(ref string) ([]httpapi.AuditEvent, error) {
	ns, name := podRef(ref)
	var l httpapi.AuditEventList
	err := w.get(herdPath+"/auditevents?stream="+url.QueryEscape("pod/"+ns+"/"+name), &l)
	return l.Items, err
}

// podFinalizedWith checks the reason of the pod's last PodFinalized.
func (w *world) podFinalizedWith(ref, reason string) error {
	items, err := w.podLog(ref)
	if err != nil {
		return err
	}
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Type != "PodFinalized" {
			continue
		}
		var p struct {
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal(items[i].Payload, &p); err != nil {
			return err
		}
		if p.Reason != reason {
			return fmt.Errorf("pod %s was finalized with reason %q, want %q", ref, p.Reason, reason)
		}
		return nil
	}
	return fmt.Errorf("pod %s was never finalized", ref)
}

// runtimeShows compares what the mock runtime did to the pod with a table
// of step and at.
func (w *world) runtimeShows(ref string, t *godog.Table) error {
	rows, err := tableRows(t, "step", "at")
	if err != nil {
		return err
	}
	ns, name := podRef(ref)
	p, ok := w.mock.Pod(ns, name)
	if !ok {
		return fmt.Errorf("the mock runtime never saw pod %s", ref)
	}
	var got, want []string
	for _, s := range p.History {
		got = append(got, string(s.Op)+" "+w.show(s.At))
	}
	for _, r := range rows {
		want = append(want, r["step"]+" "+r["at"])
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		return fmt.Errorf("the runtime took pod %s through:\n  %s\nwant\n  %s", ref, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	return nil
}

func (w *world) runtimeNeverSaw(ref string) error {
	ns, name := podRef(ref)
	if p, ok := w.mock.Pod(ns, name); ok {
		return fmt.Errorf("the mock runtime has pod %s: %+v", ref, p)
	}
	return nil
}

// quoted finds the "names" in a list such as `"n2" and "n3"`.
var quoted = regexp.MustCompile(`"([^"]+)"`)

// timePassesWhileReporting advances the clock a monitor period at a time,
// and after each step the named agents report healthy metrics, as live
// agents would while others fall silent.
func (w *world) timePassesWhileReporting(n int, unit, agents string) error {
	d := time.Duration(n) * time.Second
	if strings.HasPrefix(unit, "minute") {
		d = time.Duration(n) * time.Minute
	}
	var names []string
	for _, m := range quoted.FindAllStringSubmatch(agents, -1) {
		names = append(names, m[1])
	}
	if len(names) == 0 {
		return fmt.Errorf("name the agents that keep reporting in quotes, not %q", agents)
	}
	step := w.cfg.Health.MonitorPeriod
	end := w.clock.Now().Add(d)
	for now := w.clock.Now(); now.Before(end); {
		now = now.Add(min(step, end.Sub(now)))
		if err := w.setClock(now); err != nil {
			return err
		}
		for _, name := range names {
			if err := w.reportsAgain(name); err != nil {
				return err
			}
		}
	}
	return nil
}
