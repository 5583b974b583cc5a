package domain

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestEncodeJSONWritesWhatJSONMarshalWrites: EncodeJSON, which the views
// and the log write with, writes every row and payload of every kind on
// the model straight from the model's writer, and what it writes is what
// json.Marshal writes, byte for byte: each kind's fixture log and sample
// events, folded event by event, each event and each row after it;
// strings encoding/json escapes; values that are not the model's; a nil
// pointer.
func TestEncodeJSONWritesWhatJSONMarshalWrites(t *testing.T) {
	t.Run("ConfigMap", func(t *testing.T) {
		encodesAsJSONMarshal(t, fixtureEvents(t, "testdata/configmap_log_v1.json"), EvolveConfigMap)
	})
	t.Run("PodDisruptionBudget", func(t *testing.T) {
		encodesAsJSONMarshal(t, fixtureEvents(t, "testdata/poddisruptionbudget_log_v1.json"), EvolvePodDisruptionBudget)
		encodesAsJSONMarshal(t, samplePodDisruptionBudgetEvents(), EvolvePodDisruptionBudget)
	})
	t.Run("ReplicaSet", func(t *testing.T) {
		encodesAsJSONMarshal(t, fixtureEvents(t, "testdata/replicaset_log_v1.json"), EvolveReplicaSet)
		encodesAsJSONMarshal(t, sampleReplicaSetEvents(), EvolveReplicaSet)
	})
	t.Run("Deployment", func(t *testing.T) {
		encodesAsJSONMarshal(t, fixtureEvents(t, "testdata/deployment_log_v1.json"), EvolveDeployment)
		encodesAsJSONMarshal(t, sampleDeploymentEvents(), EvolveDeployment)
	})
	t.Run("DaemonSet", func(t *testing.T) {
		encodesAsJSONMarshal(t, fixtureEvents(t, "testdata/daemonset_log_v1.json"), EvolveDaemonSet)
		encodesAsJSONMarshal(t, sampleDaemonSetEvents(), EvolveDaemonSet)
	})
	t.Run("Job", func(t *testing.T) {
		encodesAsJSONMarshal(t, fixtureEvents(t, "testdata/job_log_v1.json"), EvolveJob)
		encodesAsJSONMarshal(t, sampleJobEvents(), EvolveJob)
	})
	t.Run("Namespace", func(t *testing.T) {
		encodesAsJSONMarshal(t, fixtureEvents(t, "testdata/namespace_log_v1.json"), EvolveNamespace)
	})
	t.Run("Lease", func(t *testing.T) {
		encodesAsJSONMarshal(t, fixtureEvents(t, "testdata/lease_log_v1.json"), EvolveLease)
		encodesAsJSONMarshal(t, fixtureEvents(t, "testdata/leader_lease_log_v1.json"), EvolveLease)
	})
	t.Run("StatefulSet", func(t *testing.T) {
		encodesAsJSONMarshal(t, sampleStatefulSetEvents(), EvolveObject[StatefulSetSpec, StatefulSetStatus])
	})
	t.Run("CronJob", func(t *testing.T) {
		encodesAsJSONMarshal(t, sampleCronJobEvents(), EvolveObject[CronJobSpec, CronJobStatus])
	})
	t.Run("ControllerRevision", func(t *testing.T) {
		encodesAsJSONMarshal(t, sampleControllerRevisionEvents(), EvolveControllerRevision)
	})
	t.Run("escaped strings", func(t *testing.T) {
		c := sampleContent()
		c.Data, c.Labels = map[string]string{}, map[string]string{}
		for i, s := range trickyStrings {
			c.Data["k"+s] = s
			c.Labels[string(rune('a'+i))] = s
		}
		c.Annotations = map[string]string{"<&>": "\u2028\u2029"}
		encodesAsJSONMarshal(t, []Event{
			cmCreated("default", "<cm>", "u&1", c, t0),
			cmUpdated(c, []string{"data", "<labels>"}, t0.Add(time.Second)),
		}, EvolveConfigMap)
	})
	t.Run("not the model's", func(t *testing.T) {
		d := int32(40)
		for _, v := range []any{
			LeaseRenewed{RenewTime: t0, At: t0},
			LeaseSpec{HolderIdentity: "<n1>", LeaseDurationSeconds: &d},
			map[string]any{"b": 1, "a": "<x>"},
			IntOrPercent{},
			json.RawMessage(`{ "a" : [1, 2] }`),
			(*ReplicaSet)(nil),
			nil,
		} {
			if _, direct := v.(layoutWritten); direct {
				if _, nilRow := v.(*ReplicaSet); !nilRow {
					t.Errorf("%T is taken as written by the model's layout", v)
				}
			}
			sameAsJSONMarshal(t, v) // a nil row is null, as json.Marshal writes it
		}
	})
}

// fixtureEvents are the events of a fixture log (testdata/*_log_v1.json)
// as today's herd decodes them.
func fixtureEvents(t *testing.T, file string) []Event {
	t.Helper()
	log := readFixtureLog(t, file)
	evs := make([]Event, len(log))
	for i, le := range log {
		var err error
		if evs[i], err = UnmarshalEvent(le.Type, le.Payload); err != nil {
			t.Fatalf("event %d (%s): %v", i, le.Type, err)
		}
	}
	return evs
}

// encodesAsJSONMarshal folds evs with evolve and checks that each row
// and each of the model's events is written straight by the model's
// writer, and that EncodeJSON writes what json.Marshal writes of each.
func encodesAsJSONMarshal[S any](t *testing.T, evs []Event, evolve func(S, Event) S) {
	t.Helper()
	var s S
	models := 0
	for i, e := range evs {
		s = evolve(s, e)
		if _, direct := any(s).(layoutWritten); !direct {
			t.Fatalf("after event %d (%s) the row of %T is not written by the model's layout", i, e.EventType(), s)
		}
		if _, direct := e.(layoutWritten); direct {
			models++
		}
		sameAsJSONMarshal(t, e)
		sameAsJSONMarshal(t, s)
		sameAsJSONMarshal(t, &s)
	}
	if models == 0 {
		t.Errorf("none of the %d events is written by the model's layout", len(evs))
	}
}

func sameAsJSONMarshal(t *testing.T, v any) {
	t.Helper()
	want, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := EncodeJSON(v)
	if err != nil {
		t.Fatalf("%T: %v", v, err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%T: EncodeJSON writes\n %s\njson.Marshal\n %s", v, got, want)
	}
}
