package projections

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
)

func target(name, url string) domain.KubeletTarget {
	return domain.KubeletTarget{Name: name, URL: url}
}

// setTargets runs one command on the set of kubelet targets, at the
// writer's clock's time.
func setTargets(t *testing.T, w *Writer, cmd domain.KubeletTargetsCommand) (domain.KubeletTargets, error) {
	t.Helper()
	return w.KubeletTargetsCommands().Execute(context.Background(), domain.Key{}, cmd)
}

func TestKubeletTargetsReadTheirOwnWrites(t *testing.T) {
	w, store, _ := newWriter(t)
	ctx := t.Context()
	view := NewKubeletTargetView(store.Log())

	empty, head, err := view.Targets(ctx)
	if err != nil || empty.Version != 0 || len(empty.Targets) != 0 || head != 0 {
		t.Fatalf("before any target: %+v at %d, %v", empty, head, err)
	}
	if _, err := view.Get(ctx, "k8s-01"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("get before any target: %v, want ErrNotFound", err)
	}

	if _, err := setTargets(t, w, domain.SyncConfiguredKubeletTargets{Targets: []domain.KubeletTarget{
		target("k8s-01", "http://127.0.0.1:10255"),
	}}); err != nil {
		t.Fatal(err)
	}
	written, err := setTargets(t, w, domain.SetKubeletTarget{Target: target("k8s-02", "http://127.0.0.1:10256")})
	if err != nil {
		t.Fatal(err)
	}
	got, head, err := view.Targets(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(written, got); diff != "" {
		t.Errorf("view differs from what the writer returned (-returned +view):\n%s", diff)
	}
	want := map[string]int64{"k8s-01": 1, "k8s-02": 2}
	for name, rv := range want {
		if got.Targets[name].ResourceVersion != rv {
			t.Errorf("%s resourceVersion %d, want %d", name, got.Targets[name].ResourceVersion, rv)
		}
	}
	if got.Version != 2 || head != 2 {
		t.Errorf("version %d at head %d, want 2 and 2", got.Version, head)
	}

	// A rejected command appends nothing; an unchanged one neither.
	if _, err := setTargets(t, w, domain.RemoveKubeletTarget{Name: "k8s-01"}); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("removing a configured target: %v, want ErrConflict", err)
	}
	if _, err := setTargets(t, w, domain.SetKubeletTarget{Target: target("k8s-02", "http://127.0.0.1:10256")}); err != nil {
		t.Error(err)
	}
	if h, _ := store.Head(ctx, store.DB()); h != 2 {
		t.Errorf("log head %d after a rejected and an empty command, want 2", h)
	}
	if _, err := setTargets(t, w, domain.RemoveKubeletTarget{Name: "k8s-02"}); err != nil {
		t.Fatal(err)
	}
	if _, err := view.Get(ctx, "k8s-02"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("get after remove: %v, want ErrNotFound", err)
	}
}

func TestRebuildKeepsKubeletTargetsAndScrapeFailures(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	for _, name := range []string{"k8s-01", "k8s-02"} {
		if _, err := setTargets(t, w, domain.SetKubeletTarget{Target: target(name, "http://127.0.0.1:10255")}); err != nil {
			t.Fatal(err)
		}
		do(t, w, clk, name, register(name, domain.KindKubelet))
	}
	clk.Step(10 * time.Second)
	do(t, w, clk, "k8s-01", domain.RecordScrapeFailure{Reason: "ConnectionRefused", Message: "connection refused"})
	if _, err := setTargets(t, w, domain.RemoveKubeletTarget{Name: "k8s-02"}); err != nil {
		t.Fatal(err)
	}
	clk.Step(10 * time.Second)
	do(t, w, clk, "k8s-01", domain.ClearScrapeFailure{})

	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{BatchSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	if diff != nil {
		t.Fatalf("rebuilt views differ from live ones: %s", diff)
	}
	entries, err := NewTimelineView(store.Log()).Node(ctx, "k8s-01", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, e := range entries {
		kinds = append(kinds, e.Kind+" "+e.Reason+": "+e.Message)
	}
	want := []string{
		"Registered kubelet: registered as a node of kind kubelet",
		"ScrapeFailed ConnectionRefused: herd cannot poll the kubelet: connection refused",
		"ScrapeRecovered ConnectionRefused: herd polls the kubelet again",
	}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("timeline (-want +got):\n%s", diff)
	}
}
