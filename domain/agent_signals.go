package domain

import (
	"fmt"
	"strings"
)

// NetworkLink is one of a node's network links as its agent saw it.
type NetworkLink struct {
	// Name is the link's name: eth0, net0, ixgbe0.
	Name string `json:"name"`
	// State is the operating system's word for the link's state: Linux's
	// operstate (up, down, dormant, lowerlayerdown, ...), dladm's state
	// on illumos (up, down, unknown).
	State string `json:"state"`
	// Up reports whether the link carries traffic, as the agent judged
	// it from the state (and, on Linux, the carrier).
	Up bool `json:"up"`
}

// ServiceStatus is how herd reads a watched service's state.
type ServiceStatus string

// The statuses of a watched service.
const (
	// ServiceRunning: the service manager runs it (systemd: active or
	// reloading; SMF: online).
	ServiceRunning ServiceStatus = "Running"
	// ServiceFailed: anything else, a service that does not exist included.
	ServiceFailed ServiceStatus = "Failed"
	// ServiceUnknown: the agent could not ask the service manager.
	ServiceUnknown ServiceStatus = "Unknown"
)

// ServiceNotFound is the State of a watched service the service manager
// does not know (systemd's load state not-found, or no SMF instance of
// that name).
const ServiceNotFound = "not-found"

// ServiceState is one watched service as its agent saw it.
type ServiceState struct {
	// Name is the service's name: a systemd unit (nginx.service) or an
	// SMF FMRI (svc:/network/ssh:default).
	Name string `json:"name"`
	// Status is Running, Failed or Unknown.
	Status ServiceStatus `json:"status"`
	// State is the service manager's word for it (systemd's
	// active/sub state such as failed/failed, SMF's maintenance,
	// ServiceNotFound), or, when Unknown, why the agent cannot tell.
	State string `json:"state,omitempty"`
}

// ReasonServicesUnknown is ServicesHealthy's reason while the agent cannot
// ask its service manager (systemd over D-Bus, SMF through svcs) and no
// watched service is known to have failed.
const ReasonServicesUnknown = "ServicesUnknown"

// cpuCondition is CPUPressure True when CPU use is strictly above percent.
func cpuCondition(used float64, percent int64) ReportedCondition {
	if used > float64(percent) {
		return ReportedCondition{
			Type: ConditionCPUPressure, Status: ConditionTrue, Reason: ReasonHasInsufficientCPU,
			Message: fmt.Sprintf("CPU used above the %d%% threshold", percent),
		}
	}
	return ReportedCondition{
		Type: ConditionCPUPressure, Status: ConditionFalse, Reason: ReasonHasSufficientCPU,
		Message: fmt.Sprintf("CPU used at or below the %d%% threshold", percent),
	}
}

// networkCondition is NetworkUnavailable True when no link is up, naming
// the links and their states.
func networkCondition(links []NetworkLink) ReportedCondition {
	var up, down []string
	for _, l := range links {
		if l.Up {
			up = append(up, l.Name)
		} else {
			down = append(down, fmt.Sprintf("%s (%s)", l.Name, l.State))
		}
	}
	if len(up) > 0 {
		return ReportedCondition{
			Type: ConditionNetworkUnavailable, Status: ConditionFalse, Reason: ReasonNetworkAvailable,
			Message: "links up: " + strings.Join(up, ", "),
		}
	}
	return ReportedCondition{
		Type: ConditionNetworkUnavailable, Status: ConditionTrue, Reason: ReasonNoLinkUp,
		Message: "no link is up: " + strings.Join(down, ", "),
	}
}

// servicesCondition is ServicesHealthy: False naming every service that
// does not run, else Unknown naming those the agent cannot see, else True.
func servicesCondition(ss []ServiceState) ReportedCondition {
	var failed, running []string
	// unknown are the services herd's agent cannot tell, grouped by why:
	// one unreachable systemd is one reason for all of them.
	var unknown, why []string
	unknownFor := map[string][]string{}
	for _, s := range ss {
		switch s.Status {
		case ServiceRunning:
			running = append(running, s.Name)
		case ServiceFailed:
			failed = append(failed, s.failure())
		default:
			if _, ok := unknownFor[s.State]; !ok {
				why = append(why, s.State)
			}
			unknownFor[s.State] = append(unknownFor[s.State], s.Name)
		}
	}
	for _, w := range why {
		unknown = append(unknown, fmt.Sprintf("%s (%s)", strings.Join(unknownFor[w], ", "), w))
	}
	nUnknown := len(ss) - len(failed) - len(running)
	switch {
	case len(failed) > 0:
		return ReportedCondition{
			Type: ConditionServicesHealthy, Status: ConditionFalse, Reason: ReasonServicesFailed,
			Message: fmt.Sprintf("%d of %d watched services are not running: %s", len(failed), len(ss), strings.Join(failed, "; ")),
		}
	case nUnknown > 0:
		return ReportedCondition{
			Type: ConditionServicesHealthy, Status: ConditionUnknown, Reason: ReasonServicesUnknown,
			Message: fmt.Sprintf("the state of %d of %d watched services is unknown: %s", nUnknown, len(ss), strings.Join(unknown, "; ")),
		}
	}
	return ReportedCondition{
		Type: ConditionServicesHealthy, Status: ConditionTrue, Reason: ReasonServicesRunning,
		Message: "every watched service is running: " + strings.Join(running, ", "),
	}
}

// failure says in words why a failed service counts as failed.
func (s ServiceState) failure() string {
	if s.State == ServiceNotFound {
		return s.Name + " does not exist"
	}
	return s.Name + " is " + s.State
}

// namesItsTrouble reports whether a derived condition's message names
// what is wrong (the services not running, the links down) rather than a
// measurement: then a new message is recorded even with the same status
// and reason, so that the node always names what is wrong now. Unknown
// services are left out: their message is an error's text, which need not
// read the same twice, and a change of wording is no news.
func namesItsTrouble(c ReportedCondition) bool {
	switch c.Type {
	case ConditionServicesHealthy:
		return c.Status == ConditionFalse
	case ConditionNetworkUnavailable:
		return c.Status == ConditionTrue
	}
	return false
}
