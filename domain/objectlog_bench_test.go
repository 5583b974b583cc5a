package domain

import (
	"encoding/json"
	"os"
	"testing"
)

// BenchmarkObjectLogReplay is what a replay of each kind on the object
// model does with its fixture log (testdata/*_log_v1.json), event by
// event: decode the payload, fold it, write the row (EncodeJSON, as the
// views write it) and write the event back (json.Marshal, as the log
// writes it), as the views and `herd replay --verify` do. One op is the whole
// log of the kind.
func BenchmarkObjectLogReplay(b *testing.B) {
	b.Run("ConfigMap", func(b *testing.B) { benchReplay(b, "testdata/configmap_log_v1.json", EvolveConfigMap) })
	b.Run("PodDisruptionBudget", func(b *testing.B) {
		benchReplay(b, "testdata/poddisruptionbudget_log_v1.json", EvolvePodDisruptionBudget)
	})
	b.Run("ReplicaSet", func(b *testing.B) { benchReplay(b, "testdata/replicaset_log_v1.json", EvolveReplicaSet) })
	b.Run("Deployment", func(b *testing.B) { benchReplay(b, "testdata/deployment_log_v1.json", EvolveDeployment) })
	b.Run("DaemonSet", func(b *testing.B) { benchReplay(b, "testdata/daemonset_log_v1.json", EvolveDaemonSet) })
	b.Run("Job", func(b *testing.B) { benchReplay(b, "testdata/job_log_v1.json", EvolveJob) })
	b.Run("Namespace", func(b *testing.B) { benchReplay(b, "testdata/namespace_log_v1.json", EvolveNamespace) })
}

func benchReplay[S any](b *testing.B, file string, evolve func(S, Event) S) {
	raw, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	var log []struct {
		Type    string          `json:"type"`
		Payload json.RawMessage `json:"payload"`
	}
	if err := json.Unmarshal(raw, &log); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		var s S
		for _, le := range log {
			e, err := UnmarshalEvent(le.Type, le.Payload)
			if err != nil {
				b.Fatal(err)
			}
			s = evolve(s, e)
			if _, err := EncodeJSON(s); err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(e); err != nil {
				b.Fatal(err)
			}
		}
	}
}
