package domain

import "time"

// ConditionKubeletReachable says whether herd itself could reach the
// node's kubelet endpoint (GET /healthz on the advertised port). It is
// herd's observation, not the node's report.
const ConditionKubeletReachable ConditionType = "KubeletReachable"

// Reasons of the KubeletReachable condition.
const (
	// ReasonKubeletHealthy: /healthz answered 200.
	ReasonKubeletHealthy = "KubeletHealthy"
	// ReasonConnectionRefused: nothing listens on the port.
	ReasonConnectionRefused = "ConnectionRefused"
	// ReasonProbeTimeout: no answer within the probe timeout.
	ReasonProbeTimeout = "Timeout"
	// ReasonHTTPStatus: /healthz answered with another status than 200.
	ReasonHTTPStatus = "HTTPStatus"
	// ReasonProbeFailed: any other failure (unreachable network, reset,
	// a malformed answer).
	ReasonProbeFailed = "ProbeFailed"
)

// RecordKubeletProbe is the outcome of herd probing a node's kubelet
// endpoint. It sets KubeletReachable — True when Reachable, else False —
// with the reason and the message naming the failure, and records
// NodeConditionChanged only when status, reason or message differ from
// what the node shows: a probe that finds nothing new records nothing.
// It records no heartbeat: herd's probe is not the node reporting.
type RecordKubeletProbe struct {
	Reachable bool
	Reason    string
	Message   string
}

func (c RecordKubeletProbe) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	if c.Reason == "" {
		return nil, invalid("Node", n.Name, []FieldError{{Field: "probe.reason", Reason: "required"}})
	}
	status := ConditionFalse
	if c.Reachable {
		status = ConditionTrue
	}
	cur, ok := n.Condition(ConditionKubeletReachable)
	if ok && cur.Status == status && cur.Reason == c.Reason && cur.Message == c.Message {
		return nil, nil
	}
	return []Event{NodeConditionChanged{
		Type: ConditionKubeletReachable, From: cur.Status, Status: status,
		Reason: c.Reason, Message: c.Message, At: now,
	}}, nil
}
