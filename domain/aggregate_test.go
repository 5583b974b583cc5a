package domain

import (
	"slices"
	"testing"
)

// TestAggregatesAreComplete checks the aggregates' descriptions against
// each other: every stream an aggregate makes routes back to it alone and
// parses back into its key, every event type belongs to exactly one
// aggregate, and every aggregate's events round-trip through the log's
// JSON at the schema version it declares.
func TestAggregatesAreComplete(t *testing.T) {
	samples := map[string]Event{}
	for _, e := range slices.Concat(sampleEvents(), samplePodEvents(), sampleIPAMEvents(), sampleReplicaSetEvents(), sampleDeploymentEvents(), samplePodDisruptionBudgetEvents(), sampleJobEvents(), sampleDaemonSetEvents(), sampleCronJobEvents(), sampleStatefulSetEvents(), sampleControllerRevisionEvents()) {
		samples[e.EventType()] = e
	}
	owners := map[string]string{}
	for _, a := range Aggregates() {
		t.Run(a.Name(), func(t *testing.T) {
			for _, key := range []string{"web-01", "default/nginx", "10.0.0.0/24"} {
				stream := a.Stream(key)
				got, ok := AggregateOf(stream)
				if !ok || got != a {
					t.Errorf("stream %q routes to %v, want %s", stream, got, a.Name())
				}
				if k, ok := a.Key(stream); !ok || k != key {
					t.Errorf("key of %q = %q, %v; want %q", stream, k, ok, key)
				}
				for _, other := range Aggregates() {
					if other != a && other.Owns(stream) {
						t.Errorf("stream %q is owned by %s too", stream, other.Name())
					}
				}
			}
			if len(a.Events()) == 0 {
				t.Errorf("aggregate %s lists no events", a.Name())
			}
			for _, s := range a.Events() {
				if prev, dup := owners[s.Type]; dup {
					t.Errorf("event %s belongs to %s and %s", s.Type, prev, a.Name())
				}
				owners[s.Type] = a.Name()
				e, ok := samples[s.Type]
				if !ok {
					t.Errorf("event %s has no sample to round-trip", s.Type)
					continue
				}
				if back := roundTrip(t, e); back.EventType() != s.Type {
					t.Errorf("event %s reads back as %s", s.Type, back.EventType())
				}
				if v := SchemaVersion(s.Type); v != s.Version || v < 1 {
					t.Errorf("event %s: schema version %d, the list says %d", s.Type, v, s.Version)
				}
			}
		})
	}
	for typ := range samples {
		if _, ok := owners[typ]; !ok {
			t.Errorf("event %s belongs to no aggregate", typ)
		}
	}
	if _, ok := AggregateOf("nowhere/x"); ok {
		t.Error("a stream of no aggregate routes to one")
	}
}

// TestNamespacedAggregates names the aggregates whose keys are
// "namespace/name": those a reconciler's key splits into the two.
func TestNamespacedAggregates(t *testing.T) {
	var got []string
	for _, a := range Aggregates() {
		if a.Namespaced() {
			got = append(got, a.Name())
		}
	}
	want := []string{ConfigMapAggregate.Name(), ControllerRevisionAggregate.Name(), CronJobAggregate.Name(), DaemonSetAggregate.Name(), DeploymentAggregate.Name(), JobAggregate.Name(), LeaseAggregate.Name(), PodAggregate.Name(), PodDisruptionBudgetAggregate.Name(), ReplicaSetAggregate.Name(), StatefulSetAggregate.Name()}
	if !slices.Equal(got, want) {
		t.Errorf("namespaced aggregates = %v, want %v", got, want)
	}
}
