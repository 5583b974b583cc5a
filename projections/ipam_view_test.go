package projections

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"herd/domain"
	"herd/events"
)

// poolDo runs one pool command through the writer.
func poolDo(ctx context.Context, w *Writer, cidr string, cmd domain.IPPoolCommand) (domain.IPPool, error) {
	return w.IPPoolCommands().Execute(ctx, domain.Key{Name: cidr}, cmd)
}

func allocCmd(uid string) domain.AllocateIP {
	return domain.AllocateIP{PodUID: uid, Namespace: "default", Name: "pod-" + uid}
}

func TestIPAMWriterAndView(t *testing.T) {
	ctx := t.Context()
	w, store, _ := newWriter(t)
	view := NewIPAMView(store.Log())
	const pool = "10.88.0.0/24"
	for i := range 12 {
		if _, err := poolDo(ctx, w, pool, allocCmd(fmt.Sprintf("u%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := poolDo(ctx, w, pool, domain.ReleaseIP{PodUID: "u3", Reason: "PodFinalized"}); err != nil {
		t.Fatal(err)
	}
	before, _ := store.Head(ctx, store.DB())
	if _, err := poolDo(ctx, w, pool, allocCmd("u5")); err != nil {
		t.Fatal(err)
	}
	if after, _ := store.Head(ctx, store.DB()); after != before {
		t.Errorf("allocating to a pod that holds an address appended %d events", after-before)
	}
	a, ok, err := view.AllocationOf(ctx, "u11")
	if err != nil || !ok || a.Address != "10.88.0.13" || a.Pool != pool || a.Name != "pod-u11" || !a.At.Equal(t0) {
		t.Errorf("allocation of u11: %+v %v %v", a, ok, err)
	}
	if _, ok, _ := view.AllocationOf(ctx, "u3"); ok {
		t.Error("released u3 still holds an address")
	}
	all, err := view.Allocations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []string
	for _, a := range all {
		addrs = append(addrs, a.Address)
	}
	want := []string{"10.88.0.2", "10.88.0.3", "10.88.0.4", "10.88.0.6", "10.88.0.7", "10.88.0.8", "10.88.0.9",
		"10.88.0.10", "10.88.0.11", "10.88.0.12", "10.88.0.13"}
	if diff := cmp.Diff(want, addrs); diff != "" {
		t.Errorf("allocations in numeric order (-want +got):\n%s", diff)
	}
	pools, err := view.Pools(ctx)
	if err != nil || len(pools) != 1 || pools[0].InUse != 11 {
		t.Errorf("pools %+v %v, want one with 11 in use", pools, err)
	}
	// The next allocation takes the freed address.
	p, err := poolDo(ctx, w, pool, allocCmd("new"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := p.HolderOf("new"); got.Address != "10.88.0.5" {
		t.Errorf("new pod got %s, want the freed 10.88.0.5", got.Address)
	}
}

func TestIPAMExhaustedPoolAppendsNothing(t *testing.T) {
	ctx := t.Context()
	w, store, _ := newWriter(t)
	const pool = "10.88.0.0/30"
	if _, err := poolDo(ctx, w, pool, allocCmd("a")); err != nil {
		t.Fatal(err)
	}
	before, _ := store.Head(ctx, store.DB())
	_, err := poolDo(ctx, w, pool, allocCmd("b"))
	if !errors.Is(err, domain.ErrPoolExhausted) || err.Error() != "IP pool 10.88.0.0/30 exhausted: 1 of 1 addresses in use" {
		t.Fatalf("error %v, want the pool exhausted", err)
	}
	if after, _ := store.Head(ctx, store.DB()); after != before {
		t.Error("a refused allocation appended events")
	}
}

// TestIPAMConcurrentAllocatorsNeverShareAnAddress races many allocators on
// one pool: each pod gets one address, and no address goes to two pods.
func TestIPAMConcurrentAllocatorsNeverShareAnAddress(t *testing.T) {
	ctx := t.Context()
	w, store, _ := newWriter(t)
	const pool = "10.88.0.0/24"
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			uid := fmt.Sprintf("u%d", i%20) // every pod asked for twice
			for {
				_, err := poolDo(ctx, w, pool, allocCmd(uid))
				if errors.Is(err, domain.ErrConflict) {
					continue // a stale read lost the race: decide again
				}
				if err != nil {
					t.Error(err)
				}
				return
			}
		})
	}
	wg.Wait()
	all, err := NewIPAMView(store.Log()).Allocations(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byPod, byAddr := map[string]string{}, map[string]string{}
	for _, a := range all {
		if prev, dup := byPod[a.PodUID]; dup {
			t.Errorf("%s holds %s and %s", a.PodUID, prev, a.Address)
		}
		byPod[a.PodUID], byAddr[a.Address] = a.Address, a.PodUID
	}
	if len(byPod) != 20 || len(byAddr) != 20 {
		t.Errorf("%d pods hold %d addresses, want 20 and 20", len(byPod), len(byAddr))
	}
}

func TestIPAMStaleWriterGetsConflict(t *testing.T) {
	ctx := t.Context()
	w, store, _ := newWriter(t)
	const pool = "10.88.0.0/24"
	if _, err := poolDo(ctx, w, pool, allocCmd("a")); err != nil {
		t.Fatal(err)
	}
	// A writer that read version 0 appends at version 0 and must lose.
	ltx, err := store.Log().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ltx.Rollback() }()
	tx := newUnitTx(ltx)
	_, err = w.unit.Append(ctx, tx, domain.IPPoolStream(pool), 0, []domain.Event{
		domain.IPAllocated{Pool: pool, Address: "10.88.0.2", PodUID: "b", Namespace: "default", Name: "b", At: t0},
	})
	if !errors.Is(err, domain.ErrConflict) {
		t.Errorf("stale append: %v, want ErrConflict", err)
	}
}

func TestRebuildRestoresIPAM(t *testing.T) {
	ctx := t.Context()
	w, store, _ := newWriter(t)
	for _, pool := range []string{"10.88.0.0/24", "10.89.0.0/30"} {
		for i := range 5 {
			_, _ = poolDo(ctx, w, pool, allocCmd(fmt.Sprintf("%s-%d", pool[:5], i)))
		}
		if _, err := poolDo(ctx, w, pool, domain.ReleaseIP{PodUID: pool[:5] + "-0", Reason: "PodFinalized"}); err != nil {
			t.Fatal(err)
		}
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	if diff != nil {
		t.Errorf("rebuilt IPAM view differs from the live one: %s", diff)
	}
	if _, err := Rebuild(ctx, store.Log(), RebuildOptions{}); err != nil {
		t.Fatal(err)
	}
	pools, _ := NewIPAMView(store.Log()).Pools(ctx)
	want := []IPPoolUsage{{Pool: "10.88.0.0/24", InUse: 4}, {Pool: "10.89.0.0/30", InUse: 0}}
	if diff := cmp.Diff(want, pools, cmpopts.IgnoreFields(IPPoolUsage{}, "ResourceVersion")); diff != "" {
		t.Errorf("pools after an in-place rebuild (-want +got):\n%s", diff)
	}
}
