package daemonset

import (
	"testing"
	"time"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

// TestPace: a reconcile that only pods turning ready call for waits four
// times as long as the last reconcile took, counted from its end; any
// other event, a pod failing among them, lets the next go at once.
func TestPace(t *testing.T) {
	g := newRig(t, []domain.DaemonSet{logsDS()}, nil)
	p := g.r.pace
	if d := p.begin(logsKey, at(0)); d != 0 {
		t.Fatalf("the first reconcile waits %s", d)
	}
	p.end(logsKey, at(0), at(1))
	ready := reconcilerstest.Record(t, "pod/default/logs-a", domain.PodStatusUpdated{Status: domain.PodStatus{Phase: domain.PodRunning}})
	g.r.controlled.Owners().Set(domain.Key{Namespace: "default", Name: "logs-a"}, "logs")
	if keys := g.r.Watches().KeysFor(ready); len(keys) != 1 {
		t.Fatalf("a pod turning ready reaches %v", keys)
	}
	if d := p.begin(logsKey, at(2)); d != 3*time.Second {
		t.Errorf("a reconcile for readiness alone waits %s, want 3s (4 × 1s after the end at 1s)", d)
	}
	if d := p.begin(logsKey, at(5)); d != 0 {
		t.Errorf("after the pause: waits %s", d)
	}
	p.end(logsKey, at(5), at(5))
	g.r.Watches().KeysFor(reconcilerstest.Record(t, "pod/default/logs-a", domain.PodStatusUpdated{Status: domain.PodStatus{Phase: domain.PodFailed}}))
	if d := p.begin(logsKey, at(5)); d != 0 {
		t.Errorf("a failed pod waits %s", d)
	}
	p.end(logsKey, at(5), at(65))
	if d := p.begin(logsKey, at(65)); d != paceMax {
		t.Errorf("after a reconcile of a minute: waits %s, want at most %s", d, paceMax)
	}
	g.r.known.add(logsKey)
	g.r.Watches().KeysFor(reconcilerstest.Record(t, "node/n9", domain.NodeRegistered{}))
	if d := p.begin(logsKey, at(65)); d != 0 {
		t.Errorf("a node joining waits %s", d)
	}
}
