package projections

import (
	"errors"
	"fmt"
	"net/netip"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// ipamEngine opens a migrated log on one engine, and checks that its
// views equal a rebuild of the log (what replay --verify checks).
type ipamEngine struct {
	// open returns a log on the engine's one database; each call is
	// another herd process on it (PostgreSQL) or another writer in this
	// one (SQLite, whose file one process owns).
	open   func(t *testing.T) events.Log
	verify func(t *testing.T, log events.Log)
}

func sqliteIPAM(t *testing.T) ipamEngine {
	store, err := events.Open(t.Context(), events.Config{Path: filepath.Join(t.TempDir(), "herd.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = store.Close() })
	if err := Migrate(t.Context(), store.Log()); err != nil {
		t.Fatal(err)
	}
	return ipamEngine{
		open: func(*testing.T) events.Log { return store.Log() },
		verify: func(t *testing.T, _ events.Log) {
			t.Helper()
			diff, _, err := Verify(t.Context(), store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{BatchSize: 7})
			if err != nil || diff != nil {
				t.Fatalf("the live views differ from a rebuild of the log: %v, %v", diff, err)
			}
		},
	}
}

func postgresIPAM(t *testing.T) ipamEngine {
	url := pgtest.URL(t)
	return ipamEngine{
		open: func(t *testing.T) events.Log {
			log := eventstest.OpenPostgres(t, url)
			if err := Migrate(t.Context(), log); err != nil {
				t.Fatal(err)
			}
			return log
		},
		verify: func(t *testing.T, log events.Log) {
			t.Helper()
			diff, _, err := VerifyInPlace(t.Context(), log, RebuildOptions{BatchSize: 7})
			if err != nil || diff != nil {
				t.Fatalf("the live views differ from a rebuild of the log: %v, %v", diff, err)
			}
		},
	}
}

func TestIPAMAllocationsUniqueUnderConcurrencySQLite(t *testing.T) {
	runIPAMUniqueUnderConcurrency(t, sqliteIPAM(t))
}

func TestIPAMAllocationsUniqueUnderConcurrencyPostgres(t *testing.T) {
	runIPAMUniqueUnderConcurrency(t, postgresIPAM(t))
}

// runIPAMUniqueUnderConcurrency races allocators, one at a time and in
// batches, through two writers on one pool: every pod gets one address,
// no address goes to two pods, and those handed out are the lowest. Then
// half the pods release theirs while new pods allocate, and the addresses
// freed go to the next pods, lowest first; the views equal a rebuild of
// the log throughout.
func runIPAMUniqueUnderConcurrency(t *testing.T, e ipamEngine) {
	ctx := t.Context()
	const (
		pool    = "10.88.0.0/22"
		workers = 16
		perPod  = 2  // every pod is asked for twice, by two workers
		pods    = 96 // first round
	)
	n, _ := domain.ParseIPPool(pool)
	logs := []events.Log{e.open(t), e.open(t)}
	writers := []*Writer{
		NewWriter(logs[0], clocktesting.NewFakeClock(t0), nil),
		NewWriter(logs[1], clocktesting.NewFakeClock(t0), nil),
	}
	view := NewIPAMView(logs[0])
	// run runs cmds on workers goroutines through both writers, each
	// worker every other command alone and the rest in batches of
	// three, deciding again on a conflict as the reconciler does.
	run := func(cmds []domain.IPPoolCommand) {
		t.Helper()
		var wg sync.WaitGroup
		for wk := range workers {
			w := writers[wk%len(writers)]
			var mine []domain.Keyed[domain.IPPoolCommand]
			for i := wk; i < len(cmds); i += workers {
				mine = append(mine, domain.Keyed[domain.IPPoolCommand]{Key: domain.Key{Name: pool}, Command: cmds[i]})
			}
			wg.Go(func() {
				for len(mine) > 0 {
					k := min(len(mine), 1+2*(wk%2))
					var err error
					if k == 1 {
						_, err = w.IPPoolCommands().Execute(ctx, mine[0].Key, mine[0].Command)
					} else {
						_, _, err = w.IPPoolBatch().ExecuteBatch(ctx, mine[:k])
					}
					switch {
					case errors.Is(err, domain.ErrConflict):
						continue // a stale read lost the race: decide again
					case err != nil:
						t.Error(err)
						return
					}
					mine = mine[k:]
				}
			})
		}
		wg.Wait()
	}
	held := func() map[string]string {
		t.Helper()
		all, err := view.Allocations(ctx)
		if err != nil {
			t.Fatal(err)
		}
		byPod, byAddr := map[string]string{}, map[string]string{}
		for _, a := range all {
			if prev, dup := byPod[a.PodUID]; dup {
				t.Errorf("%s holds %s and %s", a.PodUID, prev, a.Address)
			}
			if prev, dup := byAddr[a.Address]; dup {
				t.Errorf("%s is held by %s and %s", a.Address, prev, a.PodUID)
			}
			byPod[a.PodUID], byAddr[a.Address] = a.Address, a.PodUID
		}
		usage, err := view.Pools(ctx)
		if err != nil || len(usage) != 1 || usage[0].InUse != len(all) {
			t.Errorf("pool usage %+v, %v, want %d in use", usage, err, len(all))
		}
		return byPod
	}
	lowest := func(k int) []string {
		var out []string
		for i := range k {
			out = append(out, n.Address(i).String())
		}
		return out
	}
	addressesOf := func(byPod map[string]string) []string {
		var out []string
		for _, a := range byPod {
			out = append(out, a)
		}
		slices.SortFunc(out, func(a, b string) int {
			return netip.MustParseAddr(a).Compare(netip.MustParseAddr(b))
		})
		return out
	}

	var cmds []domain.IPPoolCommand
	for i := range pods * perPod {
		cmds = append(cmds, allocCmd(fmt.Sprintf("a%d", i%pods)))
	}
	run(cmds)
	first := held()
	if len(first) != pods {
		t.Fatalf("%d pods hold an address, want %d", len(first), pods)
	}
	if diff := cmp.Diff(lowest(pods), addressesOf(first)); diff != "" {
		t.Errorf("addresses handed out (-want the lowest +got):\n%s", diff)
	}
	e.verify(t, logs[0])

	// Every third pod releases while as many new pods allocate: the new
	// ones get the freed addresses or those above, never a held one.
	cmds = nil
	var released []string
	for i := 0; i < pods; i += 3 {
		uid := fmt.Sprintf("a%d", i)
		released = append(released, first[uid])
		cmds = append(cmds, domain.ReleaseIP{PodUID: uid, Reason: "PodFinalized"}, allocCmd(fmt.Sprintf("b%d", i)))
	}
	run(cmds)
	second := held()
	if len(second) != pods {
		t.Errorf("%d pods hold an address after as many releases as allocations, want %d", len(second), pods)
	}
	for i := 0; i < pods; i += 3 {
		if a, ok := second[fmt.Sprintf("a%d", i)]; ok {
			t.Errorf("a%d released its address but holds %s", i, a)
		}
	}
	e.verify(t, logs[0])

	// Once the racing is over, what is free is the lowest: new pods get
	// exactly the addresses no one holds, lowest first.
	var free []string
	inUse := map[string]bool{}
	for _, a := range second {
		inUse[a] = true
	}
	for _, a := range lowest(pods + len(released)) {
		if !inUse[a] {
			free = append(free, a)
		}
	}
	var got []string
	for i := range free {
		p, err := writers[i%2].IPPoolCommands().Execute(ctx, domain.Key{Name: pool}, allocCmd(fmt.Sprintf("c%d", i)))
		if err != nil {
			t.Fatal(err)
		}
		a, ok := p.HolderOf(fmt.Sprintf("c%d", i))
		if !ok {
			t.Fatalf("c%d holds no address after its allocation", i)
		}
		got = append(got, a.Address)
	}
	if diff := cmp.Diff(free, got); diff != "" {
		t.Errorf("addresses given after the releases (-want the free ones, lowest first +got):\n%s", diff)
	}
	if third := held(); len(third) != pods+len(free) {
		t.Errorf("%d pods hold an address, want %d", len(third), pods+len(free))
	}
	e.verify(t, logs[0])
}

// TestIPAMBatchReadsOnlyItsPods allocates a batch of pods in a pool of
// thousands of addresses in use: each command decides on the pool's row
// and its own pod's allocation, not on the pool's every allocation, and
// the batch hands out the lowest free addresses as one command after
// another would.
func TestIPAMBatchReadsOnlyItsPods(t *testing.T) {
	ctx := t.Context()
	w, store, _ := newWriter(t)
	const pool = "10.88.0.0/16"
	n, _ := domain.ParseIPPool(pool)
	fill := make([]domain.Event, 3000)
	for i := range fill {
		fill[i] = domain.IPAllocated{Pool: pool, Address: n.Address(i).String(), PodUID: fmt.Sprintf("fill-%d", i), Namespace: "default", Name: fmt.Sprintf("fill-%d", i), At: t0}
	}
	// Thousands of addresses in use, as recorded events: no command
	// allocates them at once.
	if err := w.AppendRecorded(ctx, domain.IPPoolStream(pool), fill); err != nil {
		t.Fatal(err)
	}
	var batch []domain.Keyed[domain.IPPoolCommand]
	for i := range 50 {
		batch = append(batch, domain.Keyed[domain.IPPoolCommand]{Key: domain.Key{Name: pool}, Command: allocCmd(fmt.Sprintf("new-%d", i))})
	}
	// One release in the batch opens a hole that the next allocation
	// fills.
	batch = slices.Insert(batch, 10, domain.Keyed[domain.IPPoolCommand]{Key: domain.Key{Name: pool}, Command: domain.ReleaseIP{PodUID: "fill-7"}})
	pools, _, err := w.IPPoolBatch().ExecuteBatch(ctx, batch)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pools {
		// What each command decided on: its own pod's allocation, not
		// the pool's thousands.
		if len(p.Allocations) > 1 || p.InUse < 3000-1 {
			t.Errorf("command %d decided on a pool holding %d allocations (%d in use), want its pod's alone", i, len(p.Allocations), p.InUse)
		}
	}
	if a, _ := pools[11].HolderOf("new-10"); a.Address != n.Address(7).String() {
		t.Errorf("the allocation after a release got %s, want the address released, %s", a.Address, n.Address(7))
	}
	if a, _ := pools[50].HolderOf("new-49"); a.Address != n.Address(3000+48).String() {
		t.Errorf("the batch's last allocation got %s, want %s", a.Address, n.Address(3000+48))
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{})
	if err != nil || diff != nil {
		t.Fatalf("the live views differ from a rebuild of the log: %v, %v", diff, err)
	}
}
