package domain

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// loggedEvent is one event of a fixture log as herd wrote it before its
// kinds moved onto the object model: its type, its payload, and the view
// row (the state's JSON) after folding it at position state.resourceVersion.
type loggedEvent struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	State   json.RawMessage `json:"state"`
}

// replayFixture decodes every payload of the fixture log file, folds it
// with evolve and checks, event by event, that the state is the row the
// earlier herd wrote byte for byte (so `herd replay --verify` on a log an
// earlier herd wrote finds no difference) and that the decoded event
// encodes back to the payload the earlier herd wrote.
func replayFixture[S any](t *testing.T, file string, evolve func(S, Event) S, at func(S, int64) S) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var log []loggedEvent
	if err := json.Unmarshal(raw, &log); err != nil {
		t.Fatal(err)
	}
	var s S
	for i, le := range log {
		e, err := UnmarshalEvent(le.Type, le.Payload)
		if err != nil {
			t.Fatalf("event %d (%s): %v", i, le.Type, err)
		}
		if e.EventType() != le.Type {
			t.Fatalf("event %d decodes as %s, want %s", i, e.EventType(), le.Type)
		}
		if got, want := mustJSON(t, e), compact(t, le.Payload); !bytes.Equal(got, want) {
			t.Errorf("event %d (%s) encodes as\n %s\nwant\n %s", i, le.Type, got, want)
		}
		var rv struct {
			ResourceVersion int64 `json:"resourceVersion"`
		}
		if err := json.Unmarshal(le.State, &rv); err != nil {
			t.Fatal(err)
		}
		s = at(evolve(s, e), rv.ResourceVersion)
		if got, want := mustJSON(t, s), compact(t, le.State); !bytes.Equal(got, want) {
			t.Errorf("after event %d (%s) the row is\n %s\nwant\n %s", i, le.Type, got, want)
		}
		var back S
		if err := json.Unmarshal(mustJSON(t, s), &back); err != nil {
			t.Fatal(err)
		}
		if got, want := mustJSON(t, back), compact(t, le.State); !bytes.Equal(got, want) {
			t.Errorf("after event %d (%s) the row read back is\n %s\nwant\n %s", i, le.Type, got, want)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func compact(t *testing.T, raw []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestConfigMapLogReplays replays ConfigMap events as herd wrote them
// before ConfigMaps moved onto the object model.
func TestConfigMapLogReplays(t *testing.T) {
	replayFixture(t, "testdata/configmap_log_v1.json", EvolveConfigMap,
		func(c ConfigMap, rv int64) ConfigMap { c.ResourceVersion = rv; return c })
}

// TestPodDisruptionBudgetLogReplays replays budget events as herd wrote
// them before budgets moved onto the object model.
func TestPodDisruptionBudgetLogReplays(t *testing.T) {
	replayFixture(t, "testdata/poddisruptionbudget_log_v1.json", EvolvePodDisruptionBudget,
		func(b PodDisruptionBudget, rv int64) PodDisruptionBudget { b.ResourceVersion = rv; return b })
}

// TestReplicaSetLogReplays replays ReplicaSet events as herd wrote them
// before ReplicaSets moved onto the object model: created with owners,
// changed, scaled, its status recorded, an owner released and another
// set by an update, deleted in the foreground and then for good, created
// again and deleted with its pods orphaned.
func TestReplicaSetLogReplays(t *testing.T) {
	replayFixture(t, "testdata/replicaset_log_v1.json", EvolveReplicaSet,
		func(rs ReplicaSet, rv int64) ReplicaSet { rs.ResourceVersion = rv; return rs })
}

// TestDeploymentLogReplays replays Deployment events as herd wrote them
// before Deployments moved onto the object model: created, changed
// (paused, a new template), scaled, its status recorded with a revision
// and conditions and then without either, deleted in the foreground and
// then for good, created again and deleted with its ReplicaSets orphaned.
func TestDeploymentLogReplays(t *testing.T) {
	replayFixture(t, "testdata/deployment_log_v1.json", EvolveDeployment,
		func(d Deployment, rv int64) Deployment { d.ResourceVersion = rv; return d })
}

// TestDaemonSetLogReplays replays DaemonSet events as herd wrote them
// before DaemonSets moved onto the object model: every event type, a
// template change (a new template generation) and a spec change that is
// not one, a foreground deletion and an orphaning one, each tombstone
// keeping the UID the garbage collector looks its pods up by.
func TestDaemonSetLogReplays(t *testing.T) {
	replayFixture(t, "testdata/daemonset_log_v1.json", EvolveDaemonSet,
		func(ds DaemonSet, rv int64) DaemonSet { ds.ResourceVersion = rv; return ds })
}

// TestJobLogReplays replays Job events as herd wrote them before Jobs
// moved onto the object model: every event type, pods counted and
// forgotten (the Job's tracking beside its status), a foreground deletion
// and an orphaning one.
func TestJobLogReplays(t *testing.T) {
	replayFixture(t, "testdata/job_log_v1.json", EvolveJob,
		func(j Job, rv int64) Job { j.ResourceVersion = rv; return j })
}
