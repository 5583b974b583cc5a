package domain

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"
)

// loggedEvent is one event of a fixture log as herd wrote it before its
// kinds moved onto the object model: its type, its payload, and the view
// row (the state's JSON) after folding it at position state.resourceVersion.
type loggedEvent struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
	State   json.RawMessage `json:"state"`
}

// readFixtureLog reads a fixture log file: the records an earlier herd
// wrote.
func readFixtureLog(t *testing.T, file string) []loggedEvent {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var log []loggedEvent
	if err := json.Unmarshal(raw, &log); err != nil {
		t.Fatal(err)
	}
	return log
}

// replayFixture decodes every payload of the fixture log file, folds it
// with evolve and checks, event by event, that the state is the row the
// earlier herd wrote byte for byte (so `herd replay --verify` on a log an
// earlier herd wrote finds no difference) and that the decoded event
// encodes back to the payload the earlier herd wrote.
func replayFixture[S any](t *testing.T, file string, evolve func(S, Event) S, at func(S, int64) S) {
	t.Helper()
	log := readFixtureLog(t, file)
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

// TestMetadataOnlyUpdateOfAnEarlierLogFoldsAsBefore: an earlier herd
// recorded an update that changed labels or annotations alone as the
// kind's update event (the whole spec again, the generation as it was);
// read back from its JSON, that event still folds to the object today's
// herd folds from the kind's MetadataChanged for the same update, row
// for row, so a log written before replays to the same views.
func TestMetadataOnlyUpdateOfAnEarlierLogFoldsAsBefore(t *testing.T) {
	t.Run("Deployment", func(t *testing.T) {
		metadataOnlyFoldsAsBefore(t, sampleDeploymentEvents()[0], EvolveDeployment, earlierUpdate[DeploymentSpec, DeploymentStatus])
	})
	t.Run("ReplicaSet", func(t *testing.T) {
		created := sampleReplicaSetEvents()[0].(ReplicaSetCreated)
		created.Owners = []OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "d-uid", Controller: true}}
		metadataOnlyFoldsAsBefore(t, created, EvolveReplicaSet, earlierUpdate[ReplicaSetSpec, ReplicaSetStatus])
	})
	t.Run("ConfigMap", func(t *testing.T) {
		metadataOnlyFoldsAsBefore(t, cmCreated("default", "pico-config", "u1", sampleContent(), t0), EvolveConfigMap, earlierUpdate[ConfigMapSpec, NoStatus])
	})
	t.Run("PodDisruptionBudget", func(t *testing.T) {
		metadataOnlyFoldsAsBefore(t, samplePodDisruptionBudgetEvents()[0], EvolvePodDisruptionBudget, earlierUpdate[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus])
	})
	t.Run("Job", func(t *testing.T) {
		metadataOnlyFoldsAsBefore(t, sampleJobEvents()[0], EvolveJob, func(j Job, meta ObjectMeta, at time.Time) Event {
			return earlierUpdate(j.Object, meta, at)
		})
	})
	t.Run("DaemonSet", func(t *testing.T) {
		metadataOnlyFoldsAsBefore(t, sampleDaemonSetEvents()[0], EvolveDaemonSet, func(ds DaemonSet, meta ObjectMeta, at time.Time) Event {
			return DaemonSetChanged{Labels: meta.Labels, Annotations: meta.Annotations, Spec: ds.Spec, Generation: ds.Generation,
				TemplateGeneration: ds.TemplateGeneration, At: at}
		})
	})
	t.Run("StatefulSet", func(t *testing.T) {
		metadataOnlyFoldsAsBefore(t, sampleStatefulSetEvents()[0], EvolveObject[StatefulSetSpec, StatefulSetStatus], earlierUpdate[StatefulSetSpec, StatefulSetStatus])
	})
	t.Run("CronJob", func(t *testing.T) {
		metadataOnlyFoldsAsBefore(t, sampleCronJobEvents()[0], EvolveObject[CronJobSpec, CronJobStatus], earlierUpdate[CronJobSpec, CronJobStatus])
	})
	t.Run("ControllerRevision", func(t *testing.T) {
		metadataOnlyFoldsAsBefore(t, sampleControllerRevisionEvents()[0], EvolveControllerRevision, earlierUpdate[ControllerRevisionSpec, NoStatus])
	})
}

// metadataOnlyFoldsAsBefore creates an object with created, relabels and
// annotates it anew, and checks that the event today's herd records for
// that (the kind's MetadataChanged) and the one an earlier herd recorded
// (earlier), each read back from the JSON of the log, fold to the same
// row.
func metadataOnlyFoldsAsBefore[T objectState[S, St], S Spec[S, St], St any](t *testing.T, created Event, evolve func(T, Event) T,
	earlier func(T, ObjectMeta, time.Time) Event) {
	t.Helper()
	var zero T
	s := evolve(zero, created)
	meta := s.Model().ObjectMeta.clone()
	meta.Labels = map[string]string{"app": "relabelled", "tier": "edge"}
	meta.Annotations = map[string]string{"note": "relabelled"}
	evs, err := DecideObject(s, Update[S, St]{Meta: meta, Spec: s.Model().Spec}, at(50))
	if err != nil || len(evs) != 1 {
		t.Fatalf("a change of metadata alone: %v, %v; want one event", evs, err)
	}
	if got, want := evs[0].EventType(), kindOf[S, St]().MetadataChanged; got != want || want == "" {
		t.Fatalf("a change of metadata alone records %q, want %q", got, want)
	}
	fromLog := func(e Event) Event {
		back, err := UnmarshalEvent(e.EventType(), mustJSON(t, e))
		if err != nil {
			t.Fatal(err)
		}
		return back
	}
	today := evolve(s, fromLog(evs[0]))
	before := evolve(s, fromLog(earlier(s, meta, at(50))))
	if got, want := mustJSON(t, today), mustJSON(t, before); !bytes.Equal(got, want) {
		t.Errorf("today's log folds to\n %s\nan earlier herd's to\n %s", got, want)
	}
	if today.Model().Labels["tier"] != "edge" || today.Model().Generation != s.Model().Generation {
		t.Errorf("after the change of metadata the object is %+v, want the new labels and generation %d", today.Model().ObjectMeta, s.Model().Generation)
	}
}

// earlierUpdate is the update event an earlier herd recorded for a
// change of o's metadata alone: the new labels and annotations (and
// owners, for a kind whose update sets them), the spec and generation as
// they were.
func earlierUpdate[S Spec[S, St], St any](o Object[S, St], meta ObjectMeta, at time.Time) Event {
	e := ObjectUpdated[S, St]{Labels: meta.Labels, Annotations: meta.Annotations, Spec: o.Spec, Generation: o.Generation, At: at}
	if kindOf[S, St]().UpdateSetsOwners {
		e.Owners = meta.Owners
	}
	return e
}

// TestNamespaceLogReplays replays namespace events as herd wrote them
// before Namespaces moved onto the object model: a client's create with
// labels and annotations, relabelled, relabelled while terminating,
// deleted, created again by herd because it was in use, deleted again,
// and created as a system namespace without a uid.
func TestNamespaceLogReplays(t *testing.T) {
	replayFixture(t, "testdata/namespace_log_v1.json", EvolveNamespace,
		func(ns Namespace, rv int64) Namespace { ns.ResourceVersion = rv; return ns })
}
