package features

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"

	"herd/adapters/httpapi"
)

func (w *world) registerTimeTravelSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the nodes as they were at (\S+) are "([^"]*)", none cordoned$`, w.nodesThenNoneCordoned)
	sc.Step(`^the nodes as they are now are "([^"]*)", "([^"]+)" cordoned$`, w.nodesNowCordoned)
	sc.Step(`^what changed since (\S+) is "([^"]+)" cordoned and "([^"]+)" gone$`, w.changedSince)
	sc.Step(`^nothing changed since (\S+)$`, w.nothingChangedSince)
}

// positionAt is the log position of the newest event recorded at or
// before when, as herd's CLI finds it for --at.
func (w *world) positionAt(when string) (int64, error) {
	t, err := w.at(when)
	if err != nil {
		return 0, err
	}
	var list httpapi.AuditEventList
	q := url.Values{"tail": {"1"}, "until": {t.Add(time.Nanosecond).Format(time.RFC3339Nano)}}
	if err := w.get("/apis/herd.dev/v1/auditevents?"+q.Encode(), &list); err != nil {
		return 0, err
	}
	if len(list.Items) == 0 {
		return 0, fmt.Errorf("no event at or before %s", when)
	}
	return list.Items[0].Position, nil
}

// nodesAt are the nodes as they stood at when (an exact list), or now
// when when is "".
func (w *world) nodesAt(when string) ([]corev1.Node, error) {
	path := "/api/v1/nodes"
	if when != "" {
		pos, err := w.positionAt(when)
		if err != nil {
			return nil, err
		}
		path += "?resourceVersionMatch=Exact&resourceVersion=" + strconv.FormatInt(pos, 10)
	}
	var list corev1.NodeList
	if err := w.get(path, &list); err != nil {
		return nil, err
	}
	return list.Items, nil
}

func nodeNames(nodes []corev1.Node) string {
	var names []string
	for _, n := range nodes {
		names = append(names, n.Name)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func (w *world) nodesThenNoneCordoned(when, want string) error {
	nodes, err := w.nodesAt(when)
	if err != nil {
		return err
	}
	if got := nodeNames(nodes); got != want {
		return fmt.Errorf("the nodes at %s: %q, want %q", when, got, want)
	}
	for _, n := range nodes {
		if n.Spec.Unschedulable {
			return fmt.Errorf("node %s was cordoned at %s", n.Name, when)
		}
	}
	return nil
}

func (w *world) nodesNowCordoned(want, cordoned string) error {
	nodes, err := w.nodesAt("")
	if err != nil {
		return err
	}
	if got := nodeNames(nodes); got != want {
		return fmt.Errorf("the nodes now: %q, want %q", got, want)
	}
	for _, n := range nodes {
		if n.Name == cordoned && !n.Spec.Unschedulable {
			return fmt.Errorf("node %s is not cordoned now", n.Name)
		}
	}
	return nil
}

// changes compares the nodes at when with the nodes now, by name: those
// gone, and those whose cordon changed.
func (w *world) changes(when string) (cordoned, gone []string, err error) {
	then, err := w.nodesAt(when)
	if err != nil {
		return nil, nil, err
	}
	now, err := w.nodesAt("")
	if err != nil {
		return nil, nil, err
	}
	for _, a := range then {
		i := slices.IndexFunc(now, func(b corev1.Node) bool { return b.Name == a.Name })
		switch {
		case i < 0:
			gone = append(gone, a.Name)
		case now[i].Spec.Unschedulable != a.Spec.Unschedulable:
			cordoned = append(cordoned, a.Name)
		}
	}
	return cordoned, gone, nil
}

func (w *world) changedSince(when, cordoned, gone string) error {
	c, g, err := w.changes(when)
	if err != nil {
		return err
	}
	if !slices.Equal(c, []string{cordoned}) || !slices.Equal(g, []string{gone}) {
		return fmt.Errorf("since %s: cordoned %v, gone %v; want %s cordoned and %s gone", when, c, g, cordoned, gone)
	}
	return nil
}

func (w *world) nothingChangedSince(when string) error {
	c, g, err := w.changes(when)
	if err != nil {
		return err
	}
	if len(c)+len(g) > 0 {
		return fmt.Errorf("since %s: cordoned %v, gone %v; want nothing", when, c, g)
	}
	return nil
}
