package domain

import "time"

// RecordHeartbeat is a node reporting in: herd's agent with its metrics, a
// kubelet or a Pico with the conditions it computed itself.
//
// Every accepted heartbeat records HeartbeatRecorded, which moves the node's
// LastHeartbeat and every condition's LastHeartbeatTime to now. Then the
// desired conditions are compared with the node's:
//
//   - when Reported is not empty, they are the desired conditions: herd takes
//     their status, reason and message, and keeps its own times;
//   - otherwise, when Metrics is given, herd derives Ready, MemoryPressure,
//     DiskPressure, PIDPressure and HighLoad from them (see Thresholds),
//     and CPUPressure, NetworkUnavailable and ServicesHealthy when the
//     agent reports CPU use, its links and the services it watches;
//   - otherwise there are none, and only the heartbeat is recorded.
//
// Each desired condition that is new, or whose status, reason or message
// differs from the node's, records NodeConditionChanged; conditions the
// heartbeat does not mention stay as they are. A derived condition's
// message names the threshold, not the reading ("memory used above the 90%
// threshold"), so that it does not go stale: the figures of the moment are
// the node's Metrics (kubectl top). A derived condition whose status and
// reason hold is not recorded again for a message alone, except
// ServicesHealthy False and NetworkUnavailable True, whose message names
// the services not running and the links down.
//
// A derived pressure condition (see heldPressure) that is True stays True
// while its signal is back under the threshold for less than
// Thresholds.TransitionPeriod, as the kubelet's
// --eviction-pressure-transition-period holds its own: the first report
// under records NodePressureEased, a report above again within the period
// NodePressureReturned, and only a report under once the period has passed
// since NodePressureEased turns the condition False.
//
// Each watched service that fails records NodeServiceFailed, and each that
// runs again NodeServiceRecovered, once per change (see
// serviceTransitions). Finally, when Ready ends up
// True and was not True before, or the agent is still Starting, Stopped or
// Lost, NodeBecameReady follows, and NodeBecameNotReady when Ready leaves
// True.
//
// When the conditions' changes and Ready's turn are more than one, they
// are recorded as one NodeStatusChanged, after the services' events: a
// kubelet's first report, four conditions and Ready True, is one event
// and not five.
//
// A heartbeat that changes nothing but times thus records exactly one event.
//
// A report whose System carries a new boot ID is first a restart: see
// ReportedSystem; NodeRestarted comes before HeartbeatRecorded. A report
// that names another kubelet port or other addresses than the node's
// records NodeKubeletEndpointChanged, also before HeartbeatRecorded, so
// that herd probes the kubelet where it listens now.
type RecordHeartbeat struct {
	// Metrics as herd's agent measured them; nil when the node reports
	// conditions instead.
	Metrics *Metrics
	// Kubelet are the figures of a kubelet's summary, recorded with the
	// heartbeat as they are; the kubelet adapter turns them into Reported
	// conditions by the kubelet's own eviction thresholds.
	Kubelet *KubeletMetrics
	// Reported are the conditions a kubelet or a Pico computed. Their
	// types must be unique; their order decides the order in which
	// conditions herd does not know are appended to the node.
	Reported []ReportedCondition
	// Thresholds turn Metrics into pressure conditions; a zero field takes
	// the value of DefaultThresholds.
	Thresholds Thresholds
	// System is what a kubelet or a Pico says about its machine in the
	// same report, nil when it says nothing. A boot ID other than the one
	// herd knows means the machine rebooted (see Reboot).
	System *ReportedSystem
}

func (c RecordHeartbeat) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	if err := c.validate(n.Name); err != nil {
		return nil, err
	}
	var events []Event
	if restarted, ok := c.reboot(n, now); ok {
		events = append(events, restarted)
		n = EvolveNode(n, restarted)
	}
	if moved, ok := c.System.endpointChange(n, now); ok {
		events = append(events, moved)
		n = EvolveNode(n, moved)
	}
	events = append(events, HeartbeatRecorded{At: now, Metrics: c.Metrics.clone(), Kubelet: c.Kubelet.clone()})

	desired, derived := c.desiredConditions()
	wasReady := conditionStatus(n, ConditionReady)
	ready := wasReady
	var changes []NodeConditionChanged
	for _, d := range desired {
		if derived {
			hold, turn := holdPressure(n, d, c.Thresholds.TransitionPeriod, now)
			if turn != nil {
				events = append(events, turn)
			}
			if hold {
				continue
			}
		}
		cur, ok := n.Condition(d.Type)
		same := ok && cur.Status == d.Status && cur.Reason == d.Reason
		if same && (cur.Message == d.Message || derived && !namesItsTrouble(d)) {
			continue
		}
		changes = append(changes, NodeConditionChanged{
			Type:    d.Type,
			From:    cur.Status, // "" when the node had no such condition
			Status:  d.Status,
			Reason:  d.Reason,
			Message: d.Message,
			At:      now,
		})
		if d.Type == ConditionReady {
			ready = d.Status
		}
	}

	var turn Event
	starting := n.AgentState == AgentStarting || n.AgentState == AgentStopped || n.AgentState == AgentLost
	switch {
	case ready == ConditionTrue && (wasReady != ConditionTrue || starting):
		turn = NodeBecameReady{At: now}
	case wasReady == ConditionTrue && ready != ConditionTrue:
		turn = NodeBecameNotReady{Status: ready, Reason: readyReason(desired), At: now}
	}
	if len(changes) == 1 && turn == nil {
		// One change alone is recorded as itself, before the services'.
		events = append(events, changes[0])
		changes = nil
	}
	if c.Metrics != nil {
		events = append(events, serviceTransitions(n, c.Metrics.Services, now)...)
	}
	return append(events, statusChange(changes, turn, now)...), nil
}

// desiredConditions returns the conditions this heartbeat asks for, in the
// order new ones are appended to a node, and whether herd derived them from
// metrics (rather than taking them as reported).
func (c RecordHeartbeat) desiredConditions() (conds []ReportedCondition, derived bool) {
	switch {
	case len(c.Reported) > 0:
		return inConditionOrder(c.Reported), false
	case c.Metrics != nil:
		return deriveConditions(*c.Metrics, c.Thresholds.withDefaults()), true
	default:
		return nil, false
	}
}

// conditionStatus is the status of the node's condition of type t, or ""
// when it has none.
func conditionStatus(n Node, t ConditionType) ConditionStatus {
	c, _ := n.Condition(t)
	return c.Status
}

// readyReason is the reason the heartbeat gives Ready, if it names one.
func readyReason(desired []ReportedCondition) string {
	for _, d := range desired {
		if d.Type == ConditionReady {
			return d.Reason
		}
	}
	return ""
}
