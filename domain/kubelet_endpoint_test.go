package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStatusReportsMoveTheKubeletEndpoint: a node that reports its kubelet
// on another port or at other addresses than herd knows records the move
// once; a report that repeats them, or leaves them out, records none.
func TestStatusReportsMoveTheKubeletEndpoint(t *testing.T) {
	ready := []ReportedCondition{{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady"}}
	known := registration("pico-01").Addresses
	moved := []Address{{Type: "InternalIP", Address: "10.0.0.8"}}
	tests := []struct {
		name      string
		system    *ReportedSystem
		want      []Event
		wantPort  int32
		wantAddrs []Address
	}{
		{"a new port", &ReportedSystem{KubeletPort: 41234},
			[]Event{NodeKubeletEndpointChanged{KubeletPort: 41234, FromPort: 10250, At: at(5)}}, 41234, known},
		{"new addresses", &ReportedSystem{Addresses: moved, KubeletPort: 10250},
			[]Event{NodeKubeletEndpointChanged{FromPort: 10250, Addresses: moved, At: at(5)}}, 10250, moved},
		{"the same port and addresses", &ReportedSystem{Addresses: known, KubeletPort: 10250}, nil, 10250, known},
		{"nothing said of either", nil, nil, 10250, known},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := registered("pico-01")
			report := RecordHeartbeat{Reported: ready, System: tt.system}
			evs, err := DecideNode(n, report, at(5))
			if err != nil {
				t.Fatal(err)
			}
			var got []Event
			for _, e := range evs {
				if _, ok := e.(NodeKubeletEndpointChanged); ok {
					got = append(got, e)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("endpoint events (-want +got):\n%s", diff)
			}
			n = fold(n, evs...)
			if n.KubeletPort != tt.wantPort || !cmp.Equal(n.Addresses, tt.wantAddrs) {
				t.Errorf("node's endpoint %v port %d, want %v port %d", n.Addresses, n.KubeletPort, tt.wantAddrs, tt.wantPort)
			}
			again, err := DecideNode(n, report, at(15))
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range again {
				if _, ok := e.(NodeKubeletEndpointChanged); ok {
					t.Errorf("the same report again records %+v", e)
				}
			}
		})
	}
}
