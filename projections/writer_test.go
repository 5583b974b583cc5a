package projections

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

func TestWriterReadsItsOwnWrites(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	n := do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	clk.Step(time.Second)
	n2 := do(t, w, clk, "web-01", metrics(500))

	got, err := NewNodeView(store.Log()).Get(ctx, "web-01")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(n2, got); diff != "" {
		t.Errorf("view differs from what the writer returned (-returned +view):\n%s", diff)
	}
	head, _ := store.Head(ctx, store.DB())
	if got.ResourceVersion != head {
		t.Errorf("resourceVersion = %d, want the log head %d", got.ResourceVersion, head)
	}
	if n.Version != 1 || got.Version <= n.Version {
		t.Errorf("stream versions: after register %d, after heartbeat %d", n.Version, got.Version)
	}
	recs, err := store.ReadStream(ctx, store.DB(), domain.NodeStream("web-01"), 0)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(recs)) != got.Version {
		t.Errorf("stream holds %d events, node version is %d", len(recs), got.Version)
	}
}

func TestRejectedCommandAppendsNothing(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	before, _ := store.Head(ctx, store.DB())

	tests := []struct {
		name string
		cmd  domain.NodeCommand
		node string
		want error
	}{
		{"heartbeat for an unknown node", metrics(1), "ghost", domain.ErrNotFound},
		{"impossible metrics", metrics(-1), "web-01", domain.ErrInvalid},
		{"second Kubernetes create", domain.RegisterNode{Registration: register("web-01", domain.KindLinux).Registration, FailIfExists: true}, "web-01", domain.ErrAlreadyExists},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.NodeCommands().Execute(ctx, domain.Key{Name: tt.node}, tt.cmd)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			after, _ := store.Head(ctx, store.DB())
			if after != before {
				t.Errorf("log head moved from %d to %d", before, after)
			}
		})
	}
}

func TestStaleWriterGetsConflict(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	n := do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	do(t, w, clk, "web-01", metrics(500))

	// A writer that decided on an old snapshot must not overwrite.
	ltx, err := store.Log().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ltx.Rollback() }()
	tx := newUnitTx(ltx)
	evs, err := domain.DecideNode(n, metrics(400), clk.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, err = w.unit.Append(ctx, tx, domain.NodeStream(n.Name), n.Version, evs)
	if !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("stale append: err = %v, want ErrConflict", err)
	}
}

func TestTimelineRecordsLifecycleNotHeartbeats(t *testing.T) {
	w, store, clk := newWriter(t)
	do(t, w, clk, "web-01", register("web-01", domain.KindLinux))
	for range 3 {
		clk.Step(10 * time.Second)
		do(t, w, clk, "web-01", metrics(500))
	}
	do(t, w, clk, "web-01", domain.DeregisterNode{})
	do(t, w, clk, "web-01", register("web-01", domain.KindLinux))

	entries, err := NewTimelineView(store.Log()).Node(context.Background(), "web-01", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		if e.Kind != "ConditionChanged" {
			kinds = append(kinds, e.Kind)
		}
	}
	want := []string{"Registered", "BecameReady", "Stopped", "Restarted"}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
}
