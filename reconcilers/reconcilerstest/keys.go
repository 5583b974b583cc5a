package reconcilerstest

import (
	"encoding/json"
	"testing"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// NodeKey is a reconciler's key of the named node.
func NodeKey(name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.NodeAggregate, Name: name}
}

// PodKey is a reconciler's key of default/name, where Env.Pod puts pods.
func PodKey(name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.PodAggregate, Namespace: "default", Name: name}
}

// NamespaceKey is a reconciler's key of the named namespace.
func NamespaceKey(name string) reconcilers.Key {
	return reconcilers.Key{Aggregate: domain.NamespaceAggregate, Name: name}
}

// Strings shows keys as the logs do ("node/web-01", "monitor"), for a
// test to compare with go-cmp.
func Strings(keys []reconcilers.Key) []string {
	if keys == nil {
		return nil
	}
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.String()
	}
	return out
}

// Key is the key a test writes as it is shown: an object's stream
// ("pod/kube-system/coredns"), or else a pass's name.
func Key(s string) reconcilers.Key {
	if k, ok := reconcilers.KeyOf(events.Record{Stream: s}); ok {
		return k
	}
	return reconcilers.Pass(s)
}

// Record is ev on stream as the log holds it: what a reconciler's
// Watches map to keys.
func Record(t *testing.T, stream string, ev domain.Event) events.Record {
	t.Helper()
	payload, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	return events.Record{Stream: stream, Type: ev.EventType(), Payload: payload, Position: 1}
}
