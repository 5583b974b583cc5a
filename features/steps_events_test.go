package features

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"
)

func (w *world) registerEventSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the events of pod "([^"]+)" include:$`, w.podEventsInclude)
}

// podEventsInclude checks that the pod's events, as kubectl describe pod
// asks for them (in the pod's namespace, by the pod's name and kind),
// hold every row of the table (type, reason, from, message) in that
// order, among others.
func (w *world) podEventsInclude(ref string, t *godog.Table) error {
	rows, err := tableRows(t, "type", "reason", "from", "message")
	if err != nil {
		return err
	}
	ns, name := podRef(ref)
	sel := url.QueryEscape("involvedObject.kind=Pod,involvedObject.name=" + name + ",involvedObject.namespace=" + ns)
	var list corev1.EventList
	if err := w.get("/api/v1/namespaces/"+ns+"/events?fieldSelector="+sel, &list); err != nil {
		return err
	}
	var seen []string
	for _, e := range list.Items {
		seen = append(seen, fmt.Sprintf("%s %s from %s: %s", e.Type, e.Reason, e.Source.Component, e.Message))
	}
	next := 0
	for _, r := range rows {
		want := fmt.Sprintf("%s %s from %s: %s", r["type"], r["reason"], r["from"], r["message"])
		for next < len(seen) && seen[next] != want {
			next++
		}
		if next == len(seen) {
			return fmt.Errorf("pod %s has no event %q in order; its events:\n%s", ref, want, strings.Join(seen, "\n"))
		}
		next++
	}
	return nil
}
