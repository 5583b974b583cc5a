package reconcilers_test

import (
	"encoding/json"
	"testing"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

func TestEventsAreMatchedByTheirGoType(t *testing.T) {
	drained := events.Record{Type: domain.NodeDrained{}.EventType()}
	set := reconcilers.EventTypesOf(domain.NodeDrainStarted{}, domain.NodeDrained{})
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{name: "Is the type", got: reconcilers.Is[domain.NodeDrained](drained), want: true},
		{name: "Is another type", got: reconcilers.Is[domain.NodeDrainStarted](drained)},
		{name: "in the set", got: set.Match(drained), want: true},
		{name: "not in the set", got: set.Match(events.Record{Type: domain.NodeUndrained{}.EventType()})},
		{name: "the empty set", got: reconcilers.EventTypesOf().Match(drained)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %t, want %t", tt.got, tt.want)
			}
		})
	}
}

func TestDecodeReadsOnlyItsOwnType(t *testing.T) {
	payload, err := json.Marshal(domain.PodScheduled{NodeName: "web-01"})
	if err != nil {
		t.Fatal(err)
	}
	rec := events.Record{Type: domain.PodScheduled{}.EventType(), Payload: payload}
	ev, err := reconcilers.Decode[domain.PodScheduled](rec)
	if err != nil || ev.NodeName != "web-01" {
		t.Errorf("Decode = %+v, %v; want the binding to web-01", ev, err)
	}
	if _, err := reconcilers.Decode[domain.PodFinalized](rec); err == nil {
		t.Error("a PodScheduled decodes as a PodFinalized")
	}
	if _, err := reconcilers.Decode[domain.PodScheduled](events.Record{Type: rec.Type, Payload: []byte("{")}); err == nil {
		t.Error("a garbled payload decodes")
	}
}
