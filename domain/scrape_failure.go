package domain

import (
	"fmt"
	"time"
)

// ScrapeFailure is why herd cannot hear from a node's kubelet: it is
// unreachable, its TLS handshake fails, it refuses herd's credentials, or
// it says it is unhealthy. While it lasts the node gets no heartbeats, and
// the health rules turn it Unknown in their own time; the failure says why.
type ScrapeFailure struct {
	// Reason is a short CamelCase cause: ConnectionRefused, TLSError,
	// Unauthorized, Forbidden, Timeout, Unhealthy, ...
	Reason string `json:"reason"`
	// Message says what happened and, where herd can tell, what to fix.
	Message string `json:"message,omitempty"`
	// Since is when herd first saw this reason.
	Since time.Time `json:"since"`
}

// NodeScrapeFailed records that herd could not poll the node's kubelet, for a reason
// other than the one it last recorded.
type NodeScrapeFailed struct {
	Reason  string    `json:"reason"`
	Message string    `json:"message,omitempty"`
	At      time.Time `json:"at"`
}

// NodeScrapeRecovered records that herd polls the node's kubelet again.
type NodeScrapeRecovered struct {
	// Reason is the failure that ended.
	Reason string    `json:"reason"`
	At     time.Time `json:"at"`
}

// EventType implements Event.
func (NodeScrapeFailed) EventType() string { return "NodeScrapeFailed" }

// EventType implements Event.
func (NodeScrapeRecovered) EventType() string { return "NodeScrapeRecovered" }

// RecordScrapeFailure notes why herd cannot poll a node's kubelet. It
// records NodeScrapeFailed when the reason differs from the one the node
// has (or it has none), and nothing otherwise: a kubelet that stays down
// is polled again and again, and every poll is not news. It changes no
// condition: the heartbeats stop, and the health rules do the rest.
type RecordScrapeFailure struct {
	Reason  string
	Message string
}

func (c RecordScrapeFailure) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	if c.Reason == "" {
		return nil, invalid("Node", n.Name, []FieldError{{Field: "scrapeFailure.reason", Reason: "required"}})
	}
	if n.ScrapeFailure != nil && n.ScrapeFailure.Reason == c.Reason {
		return nil, nil
	}
	return []Event{NodeScrapeFailed{Reason: c.Reason, Message: c.Message, At: now}}, nil
}

// ClearScrapeFailure notes that herd polls the node's kubelet again: it
// records NodeScrapeRecovered when the node has a scrape failure, and
// nothing otherwise.
type ClearScrapeFailure struct{}

func (ClearScrapeFailure) decideNode(n Node, now time.Time) ([]Event, error) {
	if err := requireNode(n); err != nil {
		return nil, err
	}
	if n.ScrapeFailure == nil {
		return nil, nil
	}
	return []Event{NodeScrapeRecovered{Reason: n.ScrapeFailure.Reason, At: now}}, nil
}

// String renders the failure for logs and messages.
func (f ScrapeFailure) String() string {
	if f.Message == "" {
		return f.Reason
	}
	return fmt.Sprintf("%s: %s", f.Reason, f.Message)
}
