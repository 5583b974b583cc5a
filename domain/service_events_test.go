package domain

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// watching returns healthy metrics with the given watched services.
func watching(ss ...ServiceState) *Metrics {
	m := healthy()
	m.Services = ss
	return m
}

var (
	nginxRunning = ServiceState{Name: "nginx.service", Status: ServiceRunning, State: "active/running"}
	nginxFailed  = ServiceState{Name: "nginx.service", Status: ServiceFailed, State: "failed/failed"}
	nginxUnknown = ServiceState{Name: "nginx.service", Status: ServiceUnknown, State: "cannot reach systemd"}
	sshRunning   = ServiceState{Name: "ssh.service", Status: ServiceRunning, State: "active/running"}
	sshMissing   = ServiceState{Name: "ssh.service", Status: ServiceFailed, State: ServiceNotFound}
)

// serviceEvents picks the service events and the ServicesHealthy changes
// out of a run's events.
func serviceEvents(events []Event) []Event {
	var out []Event
	for _, e := range flat(events) {
		switch e := e.(type) {
		case NodeServiceFailed, NodeServiceRecovered:
			out = append(out, e)
		case NodeConditionChanged:
			if e.Type == ConditionServicesHealthy {
				out = append(out, e)
			}
		}
	}
	return out
}

func TestWatchedServicesFailAndRecoverOnce(t *testing.T) {
	beat := func(s int, ss ...ServiceState) step { return step{RecordHeartbeat{Metrics: watching(ss...)}, at(s)} }
	n, events := run(t, registered("web-01"),
		beat(10, nginxRunning, sshRunning),
		beat(20, nginxFailed, sshRunning),
		beat(30, nginxFailed, sshRunning), // still failed: nothing new
		beat(40, nginxFailed, sshMissing), // a second failure renames the condition
		beat(50, nginxUnknown, sshMissing),
		beat(60, nginxFailed, sshMissing), // failed before herd lost sight: no second event
		beat(70, nginxRunning, sshRunning),
	)
	want := []Event{
		NodeConditionChanged{Type: ConditionServicesHealthy, Status: ConditionTrue, Reason: ReasonServicesRunning,
			Message: "every watched service is running: nginx.service, ssh.service", At: at(10)},
		NodeConditionChanged{Type: ConditionServicesHealthy, From: ConditionTrue, Status: ConditionFalse, Reason: ReasonServicesFailed,
			Message: "1 of 2 watched services are not running: nginx.service is failed/failed", At: at(20)},
		NodeServiceFailed{Service: "nginx.service", State: "failed/failed", At: at(20)},
		NodeConditionChanged{Type: ConditionServicesHealthy, From: ConditionFalse, Status: ConditionFalse, Reason: ReasonServicesFailed,
			Message: "2 of 2 watched services are not running: nginx.service is failed/failed; ssh.service does not exist", At: at(40)},
		NodeServiceFailed{Service: "ssh.service", State: ServiceNotFound, At: at(40)},
		NodeConditionChanged{Type: ConditionServicesHealthy, From: ConditionFalse, Status: ConditionFalse, Reason: ReasonServicesFailed,
			Message: "1 of 2 watched services are not running: ssh.service does not exist", At: at(50)},
		NodeConditionChanged{Type: ConditionServicesHealthy, From: ConditionFalse, Status: ConditionFalse, Reason: ReasonServicesFailed,
			Message: "2 of 2 watched services are not running: nginx.service is failed/failed; ssh.service does not exist", At: at(60)},
		NodeConditionChanged{Type: ConditionServicesHealthy, From: ConditionFalse, Status: ConditionTrue, Reason: ReasonServicesRunning,
			Message: "every watched service is running: nginx.service, ssh.service", At: at(70)},
		NodeServiceRecovered{Service: "nginx.service", State: "active/running", At: at(70)},
		NodeServiceRecovered{Service: "ssh.service", State: "active/running", At: at(70)},
	}
	if diff := cmp.Diff(want, serviceEvents(events)); diff != "" {
		t.Errorf("service events (-want +got):\n%s", diff)
	}
	if n.FailedServices != nil {
		t.Errorf("failed services after recovery: %v", n.FailedServices)
	}
}

func TestServicesUnknownWhileTheAgentCannotAsk(t *testing.T) {
	n, events := run(t, registered("web-01"),
		step{RecordHeartbeat{Metrics: watching(nginxUnknown)}, at(10)},
		step{RecordHeartbeat{Metrics: watching(nginxRunning)}, at(20)},
	)
	want := []Event{
		NodeConditionChanged{Type: ConditionServicesHealthy, Status: ConditionUnknown, Reason: ReasonServicesUnknown,
			Message: "the state of 1 of 1 watched services is unknown: nginx.service (cannot reach systemd)", At: at(10)},
		NodeConditionChanged{Type: ConditionServicesHealthy, From: ConditionUnknown, Status: ConditionTrue, Reason: ReasonServicesRunning,
			Message: "every watched service is running: nginx.service", At: at(20)},
	}
	if diff := cmp.Diff(want, serviceEvents(events)); diff != "" {
		t.Errorf("service events (-want +got):\n%s", diff)
	}
	if c, _ := n.Condition(ConditionReady); c.Status != ConditionTrue {
		t.Errorf("Ready %s: a service herd cannot see does not make the node not ready", c.Status)
	}
}

// TestNoLinkUpNamesTheLinksDown: NetworkUnavailable's message follows the
// links down while none is up, and holds while one is.
func TestNoLinkUpNamesTheLinksDown(t *testing.T) {
	links := func(ls ...NetworkLink) *Metrics { m := healthy(); m.Links = ls; return m }
	eth0Up, eth0Down := NetworkLink{Name: "eth0", State: "up", Up: true}, NetworkLink{Name: "eth0", State: "down"}
	eth1Up, eth1Down := NetworkLink{Name: "eth1", State: "up", Up: true}, NetworkLink{Name: "eth1", State: "lowerlayerdown"}
	_, events := run(t, registered("web-01"),
		step{RecordHeartbeat{Metrics: links(eth0Up, eth1Down)}, at(10)},
		step{RecordHeartbeat{Metrics: links(eth0Up, eth1Up)}, at(20)},
		step{RecordHeartbeat{Metrics: links(eth0Down, eth1Up)}, at(30)},
		step{RecordHeartbeat{Metrics: links(eth0Down, eth1Down)}, at(40)},
		step{RecordHeartbeat{Metrics: links(eth0Down, NetworkLink{Name: "eth1", State: "down"})}, at(50)},
	)
	var got []Event
	for _, e := range flat(events) {
		if c, ok := e.(NodeConditionChanged); ok && c.Type == ConditionNetworkUnavailable {
			got = append(got, c)
		}
	}
	want := []Event{
		NodeConditionChanged{Type: ConditionNetworkUnavailable, Status: ConditionFalse, Reason: ReasonNetworkAvailable, Message: "links up: eth0", At: at(10)},
		NodeConditionChanged{Type: ConditionNetworkUnavailable, From: ConditionFalse, Status: ConditionTrue, Reason: ReasonNoLinkUp,
			Message: "no link is up: eth0 (down), eth1 (lowerlayerdown)", At: at(40)},
		NodeConditionChanged{Type: ConditionNetworkUnavailable, From: ConditionTrue, Status: ConditionTrue, Reason: ReasonNoLinkUp,
			Message: "no link is up: eth0 (down), eth1 (down)", At: at(50)},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("NetworkUnavailable changes (-want +got):\n%s", diff)
	}
}

// TestUnknownServicesAreNotRecordedForTheirWording: while the agent cannot
// ask its service manager, a reason worded differently from one heartbeat
// to the next records nothing new.
func TestUnknownServicesAreNotRecordedForTheirWording(t *testing.T) {
	timeout := func(ms int) ServiceState {
		return ServiceState{Name: "nginx.service", Status: ServiceUnknown, State: fmt.Sprintf("cannot reach systemd: timeout after %dms", ms)}
	}
	_, events := run(t, registered("web-01"),
		step{RecordHeartbeat{Metrics: watching(timeout(5001))}, at(10)},
		step{RecordHeartbeat{Metrics: watching(timeout(5003))}, at(20)},
	)
	if got := serviceEvents(events); len(got) != 1 {
		t.Errorf("ServicesHealthy recorded %d times, want once: %v", len(got), got)
	}
}
