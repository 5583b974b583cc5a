package ipam

import (
	"testing"

	"herd/events/eventstest"
	"herd/reconcilers"
	"herd/reconcilers/reconcilerstest"
)

// TestEventsDriveAllocationAndRetry runs the reconciler under the manager,
// fed by the log alone (herd's clock never reaches a resync): a binding
// gets an address, a finalization frees it, and the release hands it to
// the pod that was waiting.
func TestEventsDriveAllocationAndRetry(t *testing.T) {
	f := newFixture(t, "10.88.0.0/30")
	store := f.store
	reconcilerstest.StartManager(t, reconcilers.Params{Reconcilers: []reconcilers.Reconciler{f.r}, Store: store, Clock: f.clock})

	f.create("a", true)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return f.addresses()["a"] == "10.88.0.2" }, "a gets 10.88.0.2")
	f.create("b", true)
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		c, _ := f.get("b").Condition("herd.dev/IPAllocated")
		return c.Message == "IP pool 10.88.0.0/30 exhausted: 1 of 1 addresses in use"
	}, "b is told the pool is full")
	f.finalize("a")
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		nw := f.get("b").Network
		return nw != nil && nw.IP == "10.88.0.2"
	}, "b gets the address a released")
}
