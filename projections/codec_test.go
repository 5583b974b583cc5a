package projections

import (
	"bytes"
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"herd/domain"
)

// TestTheStoredCodecWritesEncodingJSONsBytes: replay --verify compares a
// rebuilt view's rows with the live ones byte for byte, and rows written
// before the codec changed were written by encoding/json. So the stored
// codec must write exactly encoding/json's bytes — escaping (HTML,
// U+2028/9, control characters, invalid UTF-8), floats at the edges of
// encoding/json's two forms, times in zones, sorted map keys, nil and
// empty collections, raw messages — and decode them as it does.
func TestTheStoredCodecWritesEncodingJSONsBytes(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 123456789, time.FixedZone("X", 5*3600+30*60))
	cpu := 37.5
	for name, tc := range map[string]struct {
		v   any
		new func() any
	}{
		"NodeRegistered": {domain.NodeRegistered{At: at, Registration: domain.Registration{Name: "n-1", Kind: domain.KindLinux,
			Labels:      map[string]string{"b": "2", "a": "1", "A": "0", "é": "x"},
			Annotations: map[string]string{"note": "<ops> & data \u2028\u2029 \x00\x1f\x7f \xff bad 🐑"},
			Capacity:    domain.ResourceList{"pods": 110, "cpu": 4000, "memory": 16 << 30}}}, func() any { return new(domain.NodeRegistered) }},
		"HeartbeatRecorded": {domain.HeartbeatRecorded{At: at, Metrics: &domain.Metrics{CPUCount: 4, Load1: 1e-7, Load5: 1e21, Load15: 123456789.123456789,
			MemoryTotalBytes: math.MaxInt64, CPUPercent: &cpu, Links: []domain.NetworkLink{{Name: "eth0", State: "up", Up: true}}}},
			func() any { return new(domain.HeartbeatRecorded) }},
		"Node": {domain.Node{Name: "n-1", Labels: map[string]string{}, Taints: []domain.Taint{},
			Conditions: []domain.Condition{{Type: domain.ConditionReady, Status: domain.ConditionTrue, Message: "load1 3.21 <= 32", LastHeartbeatTime: at}}},
			func() any { return new(domain.Node) }},
		"Pod": {domain.Pod{Namespace: "default", Name: "web", CreatedAt: at, Spec: domain.PodSpec{NodeName: "n-1",
			Containers: []domain.Container{{Name: "web", Args: []string{"-g", "daemon off;"}, Requests: domain.ResourceList{"cpu": 250}}}},
			Status: domain.PodStatus{Phase: domain.PodRunning, Message: "<&>"}}, func() any { return new(domain.Pod) }},
		"floats":  {[]float64{0, math.Copysign(0, -1), 1e-6, 1e20, math.MaxFloat64, math.SmallestNonzeroFloat64, -2.5e-10}, func() any { return new([]float64) }},
		"raw":     {json.RawMessage(`{"b" : 1, "a":[ 1,2 ]}`), func() any { return new(json.RawMessage) }},
		"strings": {[]string{"", "\ufffd", "tab\tnew\nline\"quote\\", "</script>"}, func() any { return new([]string) }},
	} {
		want, err := json.Marshal(tc.v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := marshalStored(tc.v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: marshalStored wrote\n%s\nencoding/json writes\n%s", name, got, want)
		}
		wantV, gotV := tc.new(), tc.new()
		if err := json.Unmarshal(want, wantV); err != nil {
			t.Fatal(err)
		}
		if err := unmarshalStored(want, gotV); err != nil {
			t.Fatalf("%s: unmarshalStored: %v", name, err)
		}
		if !reflect.DeepEqual(gotV, wantV) {
			t.Errorf("%s: unmarshalStored read %+v, encoding/json reads %+v", name, gotV, wantV)
		}
	}
}

// TestTheStoredCodecRefusesWhatEncodingJSONRefuses: a damaged payload is
// an error, not a zero value.
func TestTheStoredCodecRefusesWhatEncodingJSONRefuses(t *testing.T) {
	for _, data := range []string{``, `{`, `{"at":"yesterday"}`, `{"metrics":{"cpuCount":"four"}}`, `[]`} {
		var e domain.HeartbeatRecorded
		if err := unmarshalStored([]byte(data), &e); err == nil {
			t.Errorf("%q: decoded as %+v", data, e)
		}
	}
}

// TestReplayDecodesEventsAsEncodingJSONDoes: the events a node's life
// stores, decoded with the stored codec, are the events encoding/json
// decodes.
func TestReplayDecodesEventsAsEncodingJSONDoes(t *testing.T) {
	var n domain.Node
	now := t0
	for _, cmd := range []domain.NodeCommand{
		register("node-1", domain.KindLinux),
		metrics(100),
		domain.RecordHeartbeat{Reported: wideReport(2)},
		domain.SyncConditionTaints{},
	} {
		now = now.Add(time.Second)
		evs, err := domain.DecideNode(n, cmd, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range evs {
			n = domain.EvolveNode(n, ev)
			payload, err := json.Marshal(ev)
			if err != nil {
				t.Fatal(err)
			}
			want, err := domain.UnmarshalEvent(ev.EventType(), payload)
			if err != nil {
				t.Fatal(err)
			}
			got, err := domain.UnmarshalEventWith(ev.EventType(), payload, unmarshalStored)
			if err != nil {
				t.Fatalf("%s: %v", ev.EventType(), err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: decoded %+v, encoding/json decodes %+v", ev.EventType(), got, want)
			}
		}
	}
}
