package domain

import (
	"testing"
)

func TestScrapeFailures(t *testing.T) {
	refused := RecordScrapeFailure{Reason: "ConnectionRefused", Message: "connection refused"}
	failing := fold(ready(t, "k8s-01"), NodeScrapeFailed{Reason: "ConnectionRefused", Message: "connection refused", At: at(20)})
	tests := []struct {
		name    string
		node    Node
		cmd     NodeCommand
		want    []Event
		wantErr error
	}{
		{"a first failure is recorded", ready(t, "k8s-01"), refused,
			[]Event{NodeScrapeFailed{Reason: "ConnectionRefused", Message: "connection refused", At: at(30)}}, nil},
		{"the same reason again is not news", failing,
			RecordScrapeFailure{Reason: "ConnectionRefused", Message: "dial tcp: connection refused"}, nil, nil},
		{"another reason is", failing, RecordScrapeFailure{Reason: "Unauthorized", Message: "401"},
			[]Event{NodeScrapeFailed{Reason: "Unauthorized", Message: "401", At: at(30)}}, nil},
		{"recovery ends the failure", failing, ClearScrapeFailure{},
			[]Event{NodeScrapeRecovered{Reason: "ConnectionRefused", At: at(30)}}, nil},
		{"recovery without a failure is nothing", ready(t, "k8s-01"), ClearScrapeFailure{}, nil, nil},
		{"an unknown node", Node{Name: "ghost"}, refused, nil, ErrNotFound},
		{"an unknown node recovers", Node{Name: "ghost"}, ClearScrapeFailure{}, nil, ErrNotFound},
		{"a failure needs a reason", ready(t, "k8s-01"), RecordScrapeFailure{}, nil, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecideNode(tt.node, tt.cmd, at(30))
			checkDecision(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestScrapeFailureOnTheNode(t *testing.T) {
	n, _ := run(t, ready(t, "k8s-01"),
		step{RecordScrapeFailure{Reason: "TLSError", Message: "x509: certificate signed by unknown authority"}, at(20)},
		step{RecordScrapeFailure{Reason: "TLSError", Message: "x509 again"}, at(30)},
	)
	want := ScrapeFailure{Reason: "TLSError", Message: "x509: certificate signed by unknown authority", Since: at(20)}
	if n.ScrapeFailure == nil || *n.ScrapeFailure != want {
		t.Fatalf("scrape failure %+v, want %+v", n.ScrapeFailure, want)
	}
	if got := want.String(); got != "TLSError: x509: certificate signed by unknown authority" {
		t.Errorf("String() = %q", got)
	}
	n, _ = run(t, n, step{ClearScrapeFailure{}, at(40)})
	if n.ScrapeFailure != nil {
		t.Errorf("after recovery: %+v, want none", n.ScrapeFailure)
	}
}

func TestDeregisterWithAMessage(t *testing.T) {
	got, err := DecideNode(ready(t, "k8s-01"), DeregisterNode{Message: "herd no longer polls this kubelet"}, at(30))
	want := append([]Event{
		NodeDeregistered{At: at(30)},
		NodeConditionChanged{Type: ConditionReady, From: ConditionTrue, Status: ConditionFalse,
			Reason: ReasonAgentStopped, Message: "herd no longer polls this kubelet", At: at(30)},
	}, stalePressures("herd no longer polls this kubelet", at(30))...)
	checkDecision(t, flat(got), err, want, nil)
}
