package job

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
	"herd/reconcilers/reconcilerstest"
)

// TestKeysForPodEvents: every change of a Job's pod that may move what
// the Job counts reaches the Job, its metadata (finalizers, labels)
// included, as for a ReplicaSet's and a DaemonSet's pods; a change that
// moves nothing it counts does not, nor does a change of the Job's own
// labels or annotations alone.
func TestKeysForPodEvents(t *testing.T) {
	f := newFixture(t, nil)
	owner := domain.OwnerReference{APIVersion: "batch/v1", Kind: "Job", Name: "pi", UID: "uid-pi", Controller: true}
	const pod = "pod/default/pi-1"
	record := func(ev domain.Event) events.Record {
		payload, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return events.Record{Stream: pod, Type: ev.EventType(), Payload: payload, Position: 1}
	}
	job := []string{"job/default/pi"}
	for _, s := range []struct {
		name string
		rec  events.Record
		want []string
	}{
		{"its pod created", record(domain.PodCreated{Namespace: "default", Name: "pi-1", Owners: []domain.OwnerReference{owner}}), job},
		{"its pod's metadata changed", record(domain.PodMetadataChanged{}), job},
		{"its pod bound, which changes nothing it counts", record(domain.PodScheduled{NodeName: "n1"}), nil},
		{"its pod finished", record(domain.PodStatusUpdated{}), job},
		{"its pod gone", record(domain.PodFinalized{}), job},
		{"the Job relabelled, which moves none of its pods", events.Record{Stream: "job/default/pi", Type: domain.JobMetadataChanged{}.EventType(),
			Payload: []byte(`{"labels":{"tier":"edge"},"changed":["metadata.labels.tier"],"at":"2026-03-01T12:00:00Z"}`), Position: 2}, nil},
		{"the Job's spec changed", events.Record{Stream: "job/default/pi", Type: domain.JobChanged{}.EventType(), Payload: []byte(`{}`), Position: 3}, job},
	} {
		if diff := cmp.Diff(s.want, reconcilerstest.Strings(f.r.Watches().KeysFor(s.rec))); diff != "" {
			t.Errorf("%s: keys (-want +got):\n%s", s.name, diff)
		}
	}
}
