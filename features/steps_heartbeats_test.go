package features

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"
)

// wireMetrics is the body of herd's agent heartbeat.
type wireMetrics struct {
	CPUCount             int     `json:"cpuCount"`
	Load1                float64 `json:"load1"`
	Load5                float64 `json:"load5"`
	Load15               float64 `json:"load15"`
	MemoryTotalBytes     int64   `json:"memoryTotalBytes"`
	MemoryAvailableBytes int64   `json:"memoryAvailableBytes"`
	DiskTotalBytes       int64   `json:"diskTotalBytes"`
	DiskAvailableBytes   int64   `json:"diskAvailableBytes"`
	PIDsMax              int64   `json:"pidsMax"`
	PIDsCurrent          int64   `json:"pidsCurrent"`
	ActiveJobs           int     `json:"activeJobs"`
}

// healthyMetrics is a host with room to spare: 4 CPUs at load 0.5, half
// its 16 GB of memory and 500 GB of disk free, 1% of its PIDs in use. The
// totals are round decimal numbers so that a percentage in a spec (90.01%)
// is an exact number of bytes.
func healthyMetrics() wireMetrics {
	return wireMetrics{
		CPUCount: 4, Load1: 0.5, Load5: 0.5, Load15: 0.5,
		MemoryTotalBytes: 16_000_000_000, MemoryAvailableBytes: 8_000_000_000,
		DiskTotalBytes: 500_000_000_000, DiskAvailableBytes: 250_000_000_000,
		PIDsMax: 100_000, PIDsCurrent: 1_000,
	}
}

func (w *world) registerHeartbeatSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the agent on "([^"]+)" reports healthy metrics$`, w.reportsHealthy)
	sc.Step(`^the agent on "([^"]+)" reports the same metrics again$`, w.reportsAgain)
	sc.Step(`^the agent on "([^"]+)" reports (memory|disk|PIDs) ([0-9.]+)% (?:used|in use)$`, w.reportsUsage)
	sc.Step(`^the agent on "([^"]+)" reports a load of ([0-9.]+) on (\d+) CPUs$`, w.reportsLoad)
	sc.Step(`^"([^"]+)" patches its status as "([^"]+)" with:$`, w.patchesStatus)

	sc.Step(`^node "([^"]+)" shows (\w+) (True|False|Unknown) since (\S+), last heartbeat (\S+)$`, w.showsCondition)
	sc.Step(`^node "([^"]+)" has (these|exactly these) conditions:$`, w.hasConditions)
	sc.Step(`^node "([^"]+)" has no conditions$`, w.hasNoConditions)
	sc.Step(`^no time herd shows for "([^"]+)" comes from the node's clock$`, w.timesAreHerds)
}

// heartbeat posts the agent's current metrics.
func (w *world) heartbeat(name string) error {
	return w.writeJSON(http.MethodPost, heartbeatPath(name), "application/json",
		map[string]any{"metrics": w.agentFor(name).metrics})
}

func (w *world) reportsHealthy(name string) error {
	w.agentFor(name).metrics = healthyMetrics()
	return w.heartbeat(name)
}

func (w *world) reportsAgain(name string) error { return w.heartbeat(name) }

// reportsUsage changes one measurement of the agent's metrics to the given
// share of its total, exactly, and reports; the rest stay as they were.
func (w *world) reportsUsage(name, what, percent string) error {
	m := &w.agentFor(name).metrics
	switch what {
	case "memory":
		used, err := share(m.MemoryTotalBytes, percent)
		if err != nil {
			return err
		}
		m.MemoryAvailableBytes = m.MemoryTotalBytes - used
	case "disk":
		used, err := share(m.DiskTotalBytes, percent)
		if err != nil {
			return err
		}
		m.DiskAvailableBytes = m.DiskTotalBytes - used
	case "PIDs":
		used, err := share(m.PIDsMax, percent)
		if err != nil {
			return err
		}
		m.PIDsCurrent = used
	}
	return w.heartbeat(name)
}

// percentage is a percentage with at most four decimals, such as 90.0001.
var percentage = regexp.MustCompile(`^(\d{1,3})(?:\.(\d{1,4}))?$`)

// share is percent % of total, which must come out a whole number: a spec
// that says "90.01%" means exactly that, not something rounded near it.
func share(total int64, percent string) (int64, error) {
	m := percentage.FindStringSubmatch(percent)
	if m == nil {
		return 0, fmt.Errorf("%q is not a percentage with at most four decimals", percent)
	}
	whole, _ := strconv.ParseInt(m[1], 10, 64)
	frac, _ := strconv.ParseInt((m[2] + "0000")[:4], 10, 64)
	perMillion := whole*10_000 + frac // percent × 10^4
	if total*perMillion%1_000_000 != 0 {
		return 0, fmt.Errorf("%s%% of %d is not a whole number", percent, total)
	}
	return total * perMillion / 1_000_000, nil
}

// reportsLoad changes the agent's one-minute load and CPU count, and
// reports.
func (w *world) reportsLoad(name string, load float64, cpus int) error {
	m := &w.agentFor(name).metrics
	m.Load1, m.CPUCount = load, cpus
	return w.heartbeat(name)
}

// patchesStatus is a kubelet or a Pico reporting its own conditions.
func (w *world) patchesStatus(name, contentType string, doc *godog.DocString) error {
	if !json.Valid([]byte(doc.Content)) {
		return fmt.Errorf("the patch in the spec is not valid JSON")
	}
	return w.mustWrite(http.MethodPatch, nodeStatusPath(name), contentType, []byte(doc.Content))
}

// showsCondition checks one condition's status and both of its times.
func (w *world) showsCondition(name, condition, status, since, heartbeat string) error {
	n, err := w.node(name)
	if err != nil {
		return err
	}
	return w.conditionIs(n, map[string]string{
		"type": condition, "status": status, "since": since, "last heartbeat": heartbeat,
	})
}

// hasConditions checks the node's conditions against a table with the
// columns type, status, since, last heartbeat and optionally reason.
// "exactly these" also rules out conditions the table does not list.
func (w *world) hasConditions(name, exactly string, t *godog.Table) error {
	rows, err := tableRows(t, "type", "status")
	if err != nil {
		return err
	}
	n, err := w.node(name)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := w.conditionIs(n, r); err != nil {
			return err
		}
	}
	if exactly == "exactly these" && len(n.Status.Conditions) != len(rows) {
		return fmt.Errorf("%s has %d conditions, want %d: %s", name, len(n.Status.Conditions), len(rows), w.conditions(n))
	}
	return nil
}

func (w *world) hasNoConditions(name string) error {
	n, err := w.node(name)
	if err != nil {
		return err
	}
	if len(n.Status.Conditions) > 0 {
		return fmt.Errorf("%s has conditions: %s", name, w.conditions(n))
	}
	return nil
}

func (w *world) conditionIs(n corev1.Node, want map[string]string) error {
	for _, c := range n.Status.Conditions {
		if string(c.Type) != want["type"] {
			continue
		}
		got := map[string]string{
			"type":           string(c.Type),
			"status":         string(c.Status),
			"reason":         c.Reason,
			"since":          w.show(c.LastTransitionTime.Time),
			"last heartbeat": w.show(c.LastHeartbeatTime.Time),
		}
		for k, v := range want {
			if got[k] != v {
				return fmt.Errorf("%s of %s: %s is %q, want %q; conditions: %s", want["type"], n.Name, k, got[k], v, w.conditions(n))
			}
		}
		return nil
	}
	return fmt.Errorf("%s has no %s condition; conditions: %s", n.Name, want["type"], w.conditions(n))
}

// conditions renders a node's conditions for an error message.
func (w *world) conditions(n corev1.Node) string {
	var out []string
	for _, c := range n.Status.Conditions {
		out = append(out, fmt.Sprintf("%s=%s (%s) since %s, last heartbeat %s", c.Type, c.Status, c.Reason,
			w.show(c.LastTransitionTime.Time), w.show(c.LastHeartbeatTime.Time)))
	}
	if len(out) == 0 {
		return "none"
	}
	return "\n  " + strings.Join(out, "\n  ")
}

// timesAreHerds checks every timestamp herd shows about a node — in the
// Node, in its timeline and in its records in the log — against herd's
// clock: none lies before herd started in this scenario or after the
// clock's present. A node's own clock (a Pico's, which starts at 1970)
// would fall outside.
func (w *world) timesAreHerds(name string) error {
	var sources []response
	for _, path := range []string{nodePath(name), timelinePath(name), auditPath + "?" + url.Values{"stream": {"node/" + name}}.Encode()} {
		r, err := w.do(http.MethodGet, path, "", nil)
		if err != nil {
			return err
		}
		if r.code != http.StatusOK {
			return fmt.Errorf("unexpected answer: %s", r)
		}
		sources = append(sources, r)
	}
	from, to := w.epoch, w.clock.Now()
	seen := 0
	for _, r := range sources {
		var doc any
		if err := json.Unmarshal(r.body, &doc); err != nil {
			return fmt.Errorf("%s %s: %w", r.method, r.path, err)
		}
		for path, t := range timestamps(doc, "") {
			seen++
			if t.Before(from) || t.After(to) {
				return fmt.Errorf("%s %s shows %s = %s, which is not herd's time (herd started at %s, its clock reads %s)",
					r.method, r.path, path, t.Format(time.RFC3339Nano), w.show(from), w.show(to))
			}
		}
	}
	if seen == 0 {
		return fmt.Errorf("herd shows no times at all for %s", name)
	}
	return nil
}

// timestamps yields every string in a decoded JSON document that reads as
// an RFC 3339 time, with its path. Payloads nested as JSON are walked too.
func timestamps(doc any, path string) func(yield func(string, time.Time) bool) {
	return func(yield func(string, time.Time) bool) {
		var walk func(v any, path string) bool
		walk = func(v any, path string) bool {
			switch v := v.(type) {
			case map[string]any:
				for k, e := range v {
					if !walk(e, path+"."+k) {
						return false
					}
				}
			case []any:
				for i, e := range v {
					if !walk(e, fmt.Sprintf("%s[%d]", path, i)) {
						return false
					}
				}
			case string:
				if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
					return yield(path, t)
				}
			}
			return true
		}
		walk(doc, path)
	}
}
