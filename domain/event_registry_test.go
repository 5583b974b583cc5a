package domain

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// roundTrip stores an event the way the log does and reads it back.
func roundTrip(t *testing.T, e Event) Event {
	t.Helper()
	payload, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("marshal %s: %v", e.EventType(), err)
	}
	back, err := UnmarshalEvent(e.EventType(), payload)
	if err != nil {
		t.Fatalf("unmarshal %s: %v", e.EventType(), err)
	}
	return back
}

func TestEventsRoundTrip(t *testing.T) {
	var types []string
	for _, e := range slices.Concat(sampleEvents(), samplePodEvents(), sampleIPAMEvents(), sampleReplicaSetEvents(), sampleDeploymentEvents(), samplePodDisruptionBudgetEvents(), sampleJobEvents(), sampleDaemonSetEvents(), sampleCronJobEvents(), sampleStatefulSetEvents(), sampleControllerRevisionEvents()) {
		types = append(types, e.EventType())
		t.Run(e.EventType(), func(t *testing.T) {
			if diff := cmp.Diff(e, roundTrip(t, e)); diff != "" {
				t.Errorf("event after JSON (-stored +read):\n%s", diff)
			}
			want := 1
			if e.EventType() == (HeartbeatMissed{}).EventType() {
				want = 2 // with its parts
			}
			if v := SchemaVersion(e.EventType()); v != want {
				t.Errorf("schema version %d, want %d", v, want)
			}
		})
	}
	slices.Sort(types)
	if diff := cmp.Diff(EventTypes(), types); diff != "" {
		t.Errorf("registered types (-registry +samples):\n%s", diff)
	}
}

func TestUnmarshalEventErrors(t *testing.T) {
	_, err := UnmarshalEvent("NodeTeleported", []byte(`{}`))
	if !errors.Is(err, ErrUnknownEventType) || !strings.Contains(err.Error(), "NodeTeleported") {
		t.Errorf("unknown type: error %v, want ErrUnknownEventType naming it", err)
	}
	if v := SchemaVersion("NodeTeleported"); v != 0 {
		t.Errorf("schema version of an unknown type %d, want 0", v)
	}
	if _, err := UnmarshalEvent("NodeDeleted", []byte(`{"at": 12`)); err == nil || !strings.Contains(err.Error(), "NodeDeleted") {
		t.Errorf("bad payload: error %v, want one naming the type", err)
	}
}

// TestReplayEqualsLive folds one node's life twice, from the events as
// decided and from the same events read back from JSON, as `herd replay`
// does: the two nodes must be equal, down to their bytes.
func TestReplayEqualsLive(t *testing.T) {
	kubeletReg := registration("web-01")
	kubeletReg.Kind, kubeletReg.Labels, kubeletReg.Addresses = KindKubelet, map[string]string{}, []Address{}
	pressed := healthy()
	pressed.DiskAvailableBytes = 1

	var live, replayed Node
	for i, s := range []step{
		{RegisterNode{Registration: registration("web-01")}, at(0)},
		{RecordHeartbeat{Metrics: healthy()}, at(10)},
		{RecordHeartbeat{Metrics: pressed}, at(20)},
		{SetNodeLabels{Labels: map[string]string{"zone": "b"}, Annotations: map[string]string{}}, at(30)},
		{RegisterNode{Registration: registration("web-01")}, at(40)},
		{RecordHeartbeat{Reported: []ReportedCondition{{Type: "Custom", Status: ConditionUnknown}}}, at(50)},
		{DeregisterNode{}, at(60)},
		{RegisterNode{Registration: registration("web-01")}, at(70)},
		{DeleteNode{}, at(80)},
		{RegisterNode{Registration: kubeletReg}, at(90)},
		{RecordHeartbeat{Metrics: healthy()}, at(100)},
	} {
		before := live.Clone()
		events, err := DecideNode(live, s.cmd, s.now)
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if diff := cmp.Diff(before, live); diff != "" {
			t.Fatalf("step %d: DecideNode changed its node (-before +after):\n%s", i, diff)
		}
		for _, e := range events {
			live = EvolveNode(live, e)
			replayed = EvolveNode(replayed, roundTrip(t, e))
		}
	}
	if diff := cmp.Diff(live, replayed); diff != "" {
		t.Errorf("replayed node differs (-live +replayed):\n%s", diff)
	}
	liveJSON, _ := json.Marshal(live)
	replayedJSON, _ := json.Marshal(replayed)
	if !bytes.Equal(liveJSON, replayedJSON) {
		t.Errorf("replayed node's JSON differs:\n%s\n%s", liveJSON, replayedJSON)
	}
	if live.Version != 16 || live.RestartCount != 0 || !live.StartedAt.Equal(at(90)) {
		t.Errorf("after delete and re-registration: version %d, restarts %d, started %v", live.Version, live.RestartCount, live.StartedAt)
	}
}

// TestUnmarshalEventWithDecodesWithTheCodecGiven: replay hands its own
// JSON library to UnmarshalEventWith; the event is the one UnmarshalEvent
// makes, and a library's error is the decode's.
func TestUnmarshalEventWithDecodesWithTheCodecGiven(t *testing.T) {
	payload := []byte(`{"at":"2026-03-01T09:00:00Z","metrics":{"cpuCount":4,"load1":0.5}}`)
	calls := 0
	counting := func(data []byte, v any) error { calls++; return json.Unmarshal(data, v) }
	got, err := UnmarshalEventWith("HeartbeatRecorded", payload, counting)
	if err != nil {
		t.Fatal(err)
	}
	want, err := UnmarshalEvent("HeartbeatRecorded", payload)
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 || !cmp.Equal(got, want) {
		t.Errorf("%d calls, decoded %+v, want %+v", calls, got, want)
	}
	refuse := func([]byte, any) error { return errors.New("refused") }
	if _, err := UnmarshalEventWith("HeartbeatRecorded", payload, refuse); err == nil || !strings.Contains(err.Error(), "decode HeartbeatRecorded: refused") {
		t.Errorf("a refusing codec: %v", err)
	}
	if _, err := UnmarshalEventWith("NoSuchEvent", payload, counting); !errors.Is(err, ErrUnknownEventType) || calls != 1 {
		t.Errorf("an unknown type: %v after %d calls", err, calls)
	}
}
