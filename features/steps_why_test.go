package features

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/httpapi"
)

func (w *world) registerWhySteps(sc *godog.ScenarioContext) {
	sc.Step(`^herd explains node "([^"]+)": "([^"]+)", made so by (\w+) of "([^"]+)"$`, func(node, what, eventType, actor string) error {
		return w.explainsNodeAt(node, "", what, eventType, actor)
	})
	sc.Step(`^herd explains node "([^"]+)" as it was at (\S+): "([^"]+)", made so by (\w+) of "([^"]+)"$`, w.explainsNodeAt)
	sc.Step(`^herd finds nothing wrong with node "([^"]+)"$`, w.nothingWrong)
	sc.Step(`^the event that evicted pod "([^"]+)" names as its cause the (\w+) event of "([^"]+)"$`, w.evictionCause)
	sc.Step(`^herd explains pod "([^"]+)": "([^"]+)", made so by (\w+) of "([^"]+)", because of (\w+)$`, w.explainsPod)
	sc.Step(`^herd explains pod "([^"]+)": "([^"]+)", made so by (\w+) of "([^"]+)"$`, func(pod, what, eventType, actor string) error {
		return w.explainsPod(pod, what, eventType, actor, "")
	})
	sc.Step(`^herd explains node "([^"]+)": "([^"]+)", made so by (\w+) of "([^"]+)", because (\w+) of node "([^"]+)" turned (\w+)$`, w.explainsNodeTurned)
	sc.Step(`^the pod ReplicaSet "([^"]+)" made in place of the evicted one names that pod's (\w+) as its cause$`, w.replacementCause)
	sc.Step(`^a client evicts the Running pod of Job "([^"]+)"$`, w.evictsJobPod)
	sc.Step(`^herd explains how Job "([^"]+)"'s Running pod came to be: "([^"]+)", made so by (\w+) of "([^"]+)"((?:, because of \w+)+)$`, w.explainsJobPodOrigin)
	sc.Step(`^the agent on "([^"]+)" reports memory ([0-9.]+)% used and disk ([0-9.]+)% used$`, w.reportsMemoryAndDisk)
}

// explainsNodeAt checks the explanation of node now or, with at (a time
// of day), as it was then.
func (w *world) explainsNodeAt(node, at, what, eventType, actor string) error {
	path := "/apis/herd.dev/v1/nodes/" + url.PathEscape(node) + "/explanation"
	if at != "" {
		t, err := w.at(at)
		if err != nil {
			return err
		}
		path += "?asOf=" + url.QueryEscape(t.Format(time.RFC3339))
	}
	var ex httpapi.NodeExplanation
	if err := w.get(path, &ex); err != nil {
		return err
	}
	// The specs write times of day; herd writes RFC 3339.
	want := what
	if i := strings.LastIndex(want, " at "); i >= 0 {
		if t, err := w.at(want[i+4:]); err == nil {
			want = want[:i+4] + t.Format(time.RFC3339)
		}
	}
	var seen []string
	for _, it := range ex.Items {
		seen = append(seen, it.What)
		if it.What != want {
			continue
		}
		if len(it.Chain) == 0 || it.Chain[0].Type != eventType || it.Chain[0].Actor != actor {
			return fmt.Errorf("%q was made so by %+v, want %s of %s", what, it.Chain, eventType, actor)
		}
		return nil
	}
	return fmt.Errorf("herd's explanation of %s says %q, want %q", node, seen, want)
}

// evictionCause finds the event of the pod's stream that began its
// deletion and the event its causation id names.
func (w *world) evictionCause(pod, causeType, node string) error {
	var pods httpapi.AuditEventList
	if err := w.get("/apis/herd.dev/v1/auditevents?stream="+url.QueryEscape("pod/default/"+pod), &pods); err != nil {
		return err
	}
	var cause string
	for _, e := range pods.Items {
		if e.Type == "PodDeletionRequested" || e.Type == "PodEvicted" {
			cause = e.CausationID
			break
		}
	}
	if cause == "" {
		return fmt.Errorf("no event of pod %s began its deletion with a cause: %+v", pod, pods.Items)
	}
	var nodes httpapi.AuditEventList
	if err := w.get("/apis/herd.dev/v1/auditevents?stream="+url.QueryEscape("node/"+node), &nodes); err != nil {
		return err
	}
	for _, e := range nodes.Items {
		if e.ID == cause {
			if e.Type != causeType {
				return fmt.Errorf("the eviction's cause is %s, want %s", e.Type, causeType)
			}
			return nil
		}
	}
	return fmt.Errorf("the eviction's cause %s is no event of node %s", cause, node)
}

// explainsPod checks herd's explanation of pod: what is wrong, made so by
// an event of eventType by actor, because of one of causeType (none
// asked when empty).
func (w *world) explainsPod(pod, what, eventType, actor, causeType string) error {
	var ex httpapi.PodExplanation
	if err := w.get("/apis/herd.dev/v1/namespaces/default/pods/"+url.PathEscape(pod)+"/explanation", &ex); err != nil {
		return err
	}
	var seen []string
	for _, it := range ex.Items {
		seen = append(seen, it.What)
		if it.What != what {
			continue
		}
		if len(it.Chain) < 1 || it.Chain[0].Type != eventType || it.Chain[0].Actor != actor ||
			causeType != "" && (len(it.Chain) < 2 || it.Chain[1].Type != causeType) {
			return fmt.Errorf("%q was made so by %+v, want %s of %s because of %q", what, it.Chain, eventType, actor, causeType)
		}
		return nil
	}
	return fmt.Errorf("herd's explanation of pod %s says %q, want %q", pod, seen, what)
}

// nothingWrong waits until herd's explanation of node lists nothing.
func (w *world) nothingWrong(node string) error {
	return eventually("nothing wrong with "+node, func() error {
		var ex httpapi.NodeExplanation
		if err := w.get("/apis/herd.dev/v1/nodes/"+url.PathEscape(node)+"/explanation", &ex); err != nil {
			return err
		}
		if len(ex.Items) > 0 {
			return fmt.Errorf("herd still explains %+v", ex.Items)
		}
		return nil
	})
}

// explainsNodeTurned checks that what is wrong with node was made so by
// an event of eventType by actor, whose cause is the event of node
// causeNode that turned condition to status: the change the decision
// read, not whatever queued the reconcile last.
func (w *world) explainsNodeTurned(node, what, eventType, actor, condition, causeNode, status string) error {
	var ex httpapi.NodeExplanation
	if err := w.get("/apis/herd.dev/v1/nodes/"+url.PathEscape(node)+"/explanation", &ex); err != nil {
		return err
	}
	var seen []string
	for _, it := range ex.Items {
		seen = append(seen, it.What)
		if it.What != what {
			continue
		}
		if len(it.Chain) < 2 || it.Chain[0].Type != eventType || it.Chain[0].Actor != actor {
			return fmt.Errorf("%q was made so by %+v, want %s of %s", what, it.Chain, eventType, actor)
		}
		// The change alone, or among the changes of one report.
		cause := it.Chain[1]
		turned := slices.ContainsFunc(strings.Split(cause.Says, "; "), func(says string) bool {
			return strings.HasPrefix(says, condition+" ") && strings.Contains(says, "→ "+status+":")
		})
		if (cause.Type != "NodeConditionChanged" && cause.Type != "NodeStatusChanged") || cause.Stream != "node/"+causeNode || !turned {
			return fmt.Errorf("%q was made so because of %s of %s (%q), want %s of node %s turning %s",
				what, cause.Type, cause.Stream, cause.Says, condition, causeNode, status)
		}
		return nil
	}
	return fmt.Errorf("herd's explanation of %s says %q, want %q", node, seen, what)
}

// reportsMemoryAndDisk is one heartbeat of the agent on name that reports
// both memory and disk in use, so that two conditions turn at once.
func (w *world) reportsMemoryAndDisk(name, memory, disk string) error {
	m := &w.agentFor(name).metrics
	mem, err := share(m.MemoryTotalBytes, memory)
	if err != nil {
		return err
	}
	dsk, err := share(m.DiskTotalBytes, disk)
	if err != nil {
		return err
	}
	m.MemoryAvailableBytes = m.MemoryTotalBytes - mem
	m.DiskAvailableBytes = m.DiskTotalBytes - dsk
	return w.heartbeat(name)
}

// replacementCause finds, among the pods the ReplicaSet controls, the
// one whose creation names as its cause the event of the type given in
// the stream of the pod the scenario evicted last.
func (w *world) replacementCause(rs, causeType string) error {
	evicted, err := w.keptPod()
	if err != nil {
		return err
	}
	var gone httpapi.AuditEventList
	if err := w.get("/apis/herd.dev/v1/auditevents?stream="+url.QueryEscape("pod/default/"+evicted), &gone); err != nil {
		return err
	}
	cause := ""
	for _, e := range gone.Items {
		if e.Type == causeType {
			cause = e.ID
		}
	}
	if cause == "" {
		return fmt.Errorf("pod %s has no %s event", evicted, causeType)
	}
	pods, err := w.replicaSetPods(rs)
	if err != nil {
		return err
	}
	var made []string
	for _, p := range pods {
		var l httpapi.AuditEventList
		if err := w.get("/apis/herd.dev/v1/auditevents?stream="+url.QueryEscape("pod/default/"+p.Name), &l); err != nil {
			return err
		}
		for _, e := range l.Items {
			if e.Type != "PodCreated" {
				continue
			}
			if e.CausationID == cause {
				return nil
			}
			made = append(made, fmt.Sprintf("%s caused by %s", p.Name, e.CausationID))
		}
	}
	return fmt.Errorf("no pod of ReplicaSet %s names %s %s of %s as its cause: %s", rs, causeType, cause, evicted, strings.Join(made, ", "))
}

// jobPod is the one pod of Job name in phase, or an error naming what
// its pods are.
func (w *world) jobPod(name, phase string) (string, error) {
	var list corev1.PodList
	if err := w.get("/api/v1/namespaces/default/pods", &list); err != nil {
		return "", err
	}
	var found []string
	for _, p := range list.Items {
		if c := metav1.GetControllerOf(&p); c != nil && c.Kind == "Job" && c.Name == name && p.DeletionTimestamp == nil && string(p.Status.Phase) == phase {
			found = append(found, p.Name)
		}
	}
	if len(found) != 1 {
		return "", fmt.Errorf("Job %s has %d pods %s, want one: %v", name, len(found), phase, found)
	}
	return found[0], nil
}

// evictsJobPod evicts the Running pod of Job name, as kubectl drain
// would.
func (w *world) evictsJobPod(name string) error {
	pod, err := w.jobPod(name, "Running")
	if err != nil {
		return err
	}
	w.evicted = append(w.evicted, pod)
	return w.evictsPod(pod)
}

// explainsJobPodOrigin checks what herd pod why says of how the Running
// pod of Job name came to be: the item what, made so by an event of
// eventType by actor, whose causes are, in order, of the types listed
// (", because of A, because of B").
func (w *world) explainsJobPodOrigin(name, what, eventType, actor, because string) error {
	pod, err := w.jobPod(name, "Running")
	if err != nil {
		return err
	}
	var ex httpapi.PodExplanation
	if err := w.get("/apis/herd.dev/v1/namespaces/default/pods/"+url.PathEscape(pod)+"/explanation", &ex); err != nil {
		return err
	}
	want := append([]string{eventType}, strings.Split(strings.TrimPrefix(because, ", because of "), ", because of ")...)
	var seen []string
	for _, it := range ex.Origin {
		seen = append(seen, it.What)
		if it.What != what {
			continue
		}
		var got []string
		for _, e := range it.Chain {
			got = append(got, e.Type)
		}
		if len(got) < len(want) || !slices.Equal(got[:len(want)], want) || it.Chain[0].Actor != actor {
			return fmt.Errorf("pod %s was %q by %v (first by %q), want %v, the first by %q", pod, what, got, it.Chain[0].Actor, want, actor)
		}
		return nil
	}
	return fmt.Errorf("herd's explanation of how pod %s came to be says %q, want %q", pod, seen, what)
}
